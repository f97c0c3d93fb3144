/**
 * `kill -9` of `latchkey serve` under full load, cycle after cycle, on one store. Each cycle
 * starts the server (on the same port every time, so signatures made for it stay valid),
 * puts it under load, kills it with SIGKILL at a random moment, checks the store (SQLite:
 * `PRAGMA integrity_check` on the file it left), starts it again and checks, against the
 * restarted server:
 *   - every token credential returned to a client before the kill still works;
 *   - no request whose nonce was accepted before the kill is accepted again (replays of the
 *     last ones accepted before the kill, when the group commit is at risk, and of a sample
 *     of the rest).
 * The load: flow clients running the three-step flow (the owner's approval made through the
 * provider on the same store, as the consent page's Allow does) and resource clients sending
 * signed GET /api/me with fresh nonces as fast as the server answers.
 *
 * Used by `node bench/faults/kill-9.ts` (20 cycles on SQLite, 5 on PostgreSQL + Redis) and
 * by test/faults/kill-9-serve.test.ts (a few cycles, in CI).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import {
  createSigningFetch,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
  signRequest,
} from '../../src/client/index.ts';
import type { ClientCredentials, SignedRequest, TokenCredentials } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { openStore } from '../../src/store/index.ts';
import { fixedKeyring, keySetOf } from '../../src/store/key-file.ts';
import { randomBytes } from 'node:crypto';
import type { Store } from '../../src/store/index.ts';

const BIN = fileURLToPath(new URL('../../bin/latchkey.js', import.meta.url));

export interface KillCyclesOptions {
  /** A SQLite file path, or a postgres:// URL (then `redis`, `schema` and `prefix` too). */
  readonly database: string;
  readonly redis?: string | undefined;
  readonly schema?: string | undefined;
  readonly prefix?: string | undefined;
  readonly cycles: number;
  /** Concurrent flow clients and resource clients. */
  readonly flowClients?: number | undefined;
  readonly resourceClients?: number | undefined;
  /** The load runs this long (ms) before a kill at a random moment of the next as long. */
  readonly loadMs?: number | undefined;
  /** Replays of nonces accepted before each kill: the last ones, and a sample of the rest. */
  readonly replayLast?: number | undefined;
  readonly replaySample?: number | undefined;
  readonly log?: ((line: string) => void) | undefined;
}

export interface CycleFigures {
  readonly cycle: number;
  /** Token credentials returned to clients before this kill. */
  readonly tokensReturned: number;
  /** Signed requests answered 200 before this kill (nonces accepted). */
  readonly noncesAccepted: number;
  /** Requests on the wire when the kill came (no answer reached their client). */
  readonly inFlightAtKill: number;
  /** Token credentials (of every cycle so far) that failed after the restart. */
  readonly tokensLost: number;
  readonly replaysSent: number;
  /** Replays the restarted server accepted: a nonce forgotten. */
  readonly replaysAccepted: number;
  /** SQLite: the first row of integrity_check ('ok'); PostgreSQL: undefined. */
  readonly integrity: string | undefined;
  /** Answers that were neither expected nor a dead connection (5xx but 503, other 4xx). */
  readonly unexpected: readonly string[];
}

export interface KillCyclesResult {
  readonly store: 'sqlite' | 'postgres';
  readonly cycles: readonly CycleFigures[];
  readonly tokensReturned: number;
  readonly noncesAccepted: number;
  readonly tokensLost: number;
  readonly replaysAccepted: number;
  readonly integrityFailures: number;
  readonly unexpected: number;
}

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<unknown>;
}

// One sealing key for the checking store in this process and every server it starts: the
// servers seal the secrets this process reads back.
const secretKey = randomBytes(32).toString('base64url');

function isPostgres(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

async function serve(options: KillCyclesOptions, port: number): Promise<Served> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('LATCHKEY_')) env[name] = value;
  }
  Object.assign(env, {
    LATCHKEY_DATABASE: options.database,
    LATCHKEY_PORT: String(port),
    LATCHKEY_LOG_LEVEL: 'silent',
    LATCHKEY_SECRET_KEY: secretKey,
    ...(options.redis === undefined ? {} : { LATCHKEY_REDIS: options.redis }),
    ...(options.schema === undefined ? {} : { LATCHKEY_POSTGRES_SCHEMA: options.schema }),
    ...(options.prefix === undefined ? {} : { LATCHKEY_REDIS_PREFIX: options.prefix }),
  });
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const listening = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /^Latchkey listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error(`latchkey serve ended: ${output}`)));
  });
  return { child, port: listening, exited };
}

async function kill9(served: Served): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null) {
    served.child.kill('SIGKILL');
  }
  await served.exited;
}

/** The first row of PRAGMA integrity_check on the file the killed server left. */
function integrityOf(path: string): string {
  // A read-write connection: it recovers the WAL as the next server would.
  const db = new DatabaseSync(path);
  try {
    const rows = db.prepare('PRAGMA integrity_check').all();
    return String(rows[0]?.['integrity_check']);
  } finally {
    db.close();
  }
}

/** Picks up to `count` items at random (a partial Fisher-Yates shuffle of a copy). */
function sample<T>(items: readonly T[], count: number): T[] {
  const copy = [...items];
  const picked: T[] = [];
  for (let i = 0; i < count && copy.length > 0; i++) {
    const at = Math.floor(Math.random() * copy.length);
    picked.push(copy[at]!);
    copy[at] = copy[copy.length - 1]!;
    copy.pop();
  }
  return picked;
}

export async function runKillCycles(options: KillCyclesOptions): Promise<KillCyclesResult> {
  const log = options.log ?? (() => undefined);
  const postgres = isPostgres(options.database);
  const store: Store = await openStore(options.database, {
    redis: options.redis,
    schema: options.schema,
    redisPrefix: options.prefix,
    keyring: fixedKeyring(keySetOf(secretKey)),
  } as Parameters<typeof openStore>[1]);
  const provider = createProvider({ store });
  const registered = await provider.clients.register({ name: 'Kill -9 load' });
  // The replays are failures by design: the failure throttle must not answer them 429 first.
  await provider.clients.update(registered.key, { failuresPerMinute: 1_000_000_000 });
  const client: ClientCredentials = { key: registered.key, secret: registered.secret };
  const owner = await provider.owners.create(`kill9-${registered.key}`, 'a long password');
  const resourceIssued = await provider.tokens.issue({
    clientKey: client.key,
    ownerId: owner.id,
  });
  const resourceToken = { token: resourceIssued.token, secret: resourceIssued.secret };

  const returned: TokenCredentials[] = [];
  const cycles: CycleFigures[] = [];
  let port = 0;
  let served = await serve(options, port);
  port = served.port;
  const base = () => `http://127.0.0.1:${port}`;

  try {
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const accepted: SignedRequest[] = [];
      const unexpected: string[] = [];
      let tokensThisCycle = 0;
      let inFlight = 0;
      let alive = true;
      // From the kill on, failures are the kill's (connections reset, answers lost).
      let killing = false;
      const note = (what: string) => {
        if (!killing && unexpected.length < 20) unexpected.push(what);
      };

      const flowClient = async () => {
        while (alive) {
          inFlight++;
          try {
            const temporary = await processTemporaryCredentialsResponse(
              await requestTemporaryCredentials(`${base()}/oauth/request_token`, { client }),
            );
            const approval = await provider.authorization.approve(temporary.token, owner.id);
            const token = await processTokenCredentialsResponse(
              await requestTokenCredentials(`${base()}/oauth/access_token`, {
                client,
                temporary,
                verifier: approval.verifier,
              }),
            );
            returned.push(token);
            tokensThisCycle++;
          } catch (error) {
            note(`flow: ${error instanceof Error ? error.message : String(error)}`);
          } finally {
            inFlight--;
          }
        }
      };
      const resourceClient = async () => {
        while (alive) {
          const signed = signRequest({
            method: 'GET',
            url: `${base()}/api/me`,
            client,
            token: resourceToken,
          });
          inFlight++;
          try {
            const answer = await fetch(signed.url, { headers: signed.headers });
            const body = await answer.text();
            if (answer.status === 200) accepted.push(signed);
            else if (answer.status !== 503) note(`resource: ${answer.status} ${body}`);
          } catch (error) {
            note(`resource: ${error instanceof Error ? error.message : String(error)}`);
          } finally {
            inFlight--;
          }
        }
      };

      const loadMs = options.loadMs ?? 1500;
      const clients = [
        ...Array.from({ length: options.flowClients ?? 4 }, flowClient),
        ...Array.from({ length: options.resourceClients ?? 16 }, resourceClient),
      ];
      await new Promise((resolve) => setTimeout(resolve, loadMs + Math.random() * loadMs));
      const inFlightAtKill = inFlight;
      killing = true;
      await kill9(served);
      alive = false;
      await Promise.all(clients);
      const noncesAccepted = accepted.length;

      const integrity = postgres ? undefined : integrityOf(options.database);
      served = await serve(options, port);

      let tokensLost = 0;
      for (const token of returned) {
        const answer = await createSigningFetch({ client, token })(`${base()}/api/me`);
        await answer.arrayBuffer();
        if (answer.status !== 200) tokensLost++;
      }
      const replayLast = options.replayLast ?? 200;
      const replays = [
        ...accepted.slice(-replayLast),
        ...sample(accepted.slice(0, -replayLast), options.replaySample ?? 300),
      ];
      let replaysAccepted = 0;
      for (const signed of replays) {
        const answer = await fetch(signed.url, { headers: signed.headers });
        const body = await answer.text();
        if (answer.status === 200) replaysAccepted++;
        else if (!/oauth_problem=nonce_used/.test(body))
          unexpected.push(`replay: ${answer.status} ${body}`);
      }
      const figures: CycleFigures = {
        cycle,
        tokensReturned: tokensThisCycle,
        noncesAccepted,
        inFlightAtKill,
        tokensLost,
        replaysSent: replays.length,
        replaysAccepted,
        integrity,
        unexpected,
      };
      cycles.push(figures);
      log(
        `cycle ${cycle}/${options.cycles}: killed with ${inFlightAtKill} requests in flight; ` +
          `${tokensThisCycle} tokens returned (${returned.length} so far, ${tokensLost} lost); ` +
          `${noncesAccepted} nonces accepted, ${replays.length} replayed, ${replaysAccepted} accepted again; ` +
          `integrity ${integrity ?? 'n/a'}${unexpected.length > 0 ? `; unexpected: ${unexpected.join(' | ')}` : ''}`,
      );
    }
  } finally {
    await kill9(served);
    await provider.close();
    await store.close();
  }
  const sum = (pick: (c: CycleFigures) => number) => cycles.reduce((n, c) => n + pick(c), 0);
  return {
    store: postgres ? 'postgres' : 'sqlite',
    cycles,
    tokensReturned: returned.length,
    noncesAccepted: sum((c) => c.noncesAccepted),
    tokensLost: Math.max(0, ...cycles.map((c) => c.tokensLost)),
    replaysAccepted: sum((c) => c.replaysAccepted),
    integrityFailures: cycles.filter((c) => c.integrity !== undefined && c.integrity !== 'ok')
      .length,
    unexpected: sum((c) => c.unexpected.length),
  };
}

/** A SQLite file in a fresh temporary folder, and its removal. */
export function temporaryDatabase(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-kill9-cycles-'));
  return {
    path: join(dir, 'latchkey.db'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
