// `kill -9` while clients are being issued tokens. Clients run the three-step flow
// concurrently with the client SDK against a server in its own process; the server is
// SIGKILLed mid-way and restarted on the same SQLite file. Every token credential that was
// returned to a client still works, and a nonce used before the kill is still refused
// (RFC 5849 §3.3), because both were committed before the answer left the server.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
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
import { createSqliteStore } from '../../src/store/index.ts';
import { localOwnerRecord } from '../support/owners.ts';

const SCRIPT = new URL('../support/kill-9-server.ts', import.meta.url).pathname;
const WORKERS = 8;
/** Kill once this many tokens were returned (the flows keep running meanwhile). */
const TOKENS_BEFORE_KILL = 40;

interface Child {
  readonly process: ChildProcess;
  readonly port: number;
}

function startChild(path: string, ownerId: string, port = 0): Promise<Child> {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', SCRIPT, path, ownerId, String(port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      resolve({ process: child, port: (JSON.parse(line) as { port: number }).port });
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
}

function killHard(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.process.exitCode !== null || child.process.signalCode !== null) return resolve();
    child.process.once('exit', () => resolve());
    child.process.kill('SIGKILL');
  });
}

const directory = mkdtempSync(join(tmpdir(), 'latchkey-kill9-'));
const path = join(directory, 'latchkey.db');
let client: ClientCredentials;
let ownerId: string;
let running: Child | undefined;

before(async () => {
  const store = createSqliteStore({ path });
  const provider = createProvider({ store });
  const registered = await provider.clients.register({ name: 'Kill -9 app' });
  client = { key: registered.key, secret: registered.secret };
  ownerId = (
    await store.owners.create(
      localOwnerRecord({ id: 'owner-k9', username: 'k9', passwordHash: 'x' }),
    )
  ).id;
  await provider.close();
  await store.close();
});

after(async () => {
  if (running !== undefined) await killHard(running);
  rmSync(directory, { recursive: true, force: true });
});

/** One client running the whole flow with the SDK, again and again, until the server dies. */
async function flowLoop(
  base: string,
  returned: TokenCredentials[],
  used: SignedRequest[],
  flows: { started: number; finished: number },
) {
  for (;;) {
    flows.started++;
    try {
      const temporary = await processTemporaryCredentialsResponse(
        await requestTemporaryCredentials(`${base}/oauth/request_token`, { client }),
      );
      const approve = await fetch(
        `${base}/test/approve?oauth_token=${encodeURIComponent(temporary.token)}`,
        { method: 'POST' },
      );
      if (approve.status !== 200) throw new Error(`approve answered ${approve.status}`);
      const verifier = await approve.text();
      const token = await processTokenCredentialsResponse(
        await requestTokenCredentials(`${base}/oauth/access_token`, {
          client,
          temporary,
          verifier,
        }),
      );
      returned.push(token);
      // A resource request whose nonce the server accepted: replayed after the restart.
      const signed = signRequest({ method: 'GET', url: `${base}/api/me`, client, token });
      const answer = await fetch(signed.url, { headers: signed.headers });
      await answer.arrayBuffer();
      if (answer.status === 200) used.push(signed);
      flows.finished++;
    } catch {
      return; // the server was killed: this client stops
    }
  }
}

describe('kill -9 while clients are being issued tokens', () => {
  const returned: TokenCredentials[] = [];
  const used: SignedRequest[] = [];
  const flows = { started: 0, finished: 0 };
  let inFlightAtKill = 0;
  let port = 0;

  before(async () => {
    running = await startChild(path, ownerId);
    port = running.port;
    const base = `http://127.0.0.1:${port}`;
    const victim = running;
    const workers = Array.from({ length: WORKERS }, () => flowLoop(base, returned, used, flows));
    const killer = (async () => {
      while (returned.length < TOKENS_BEFORE_KILL && victim.process.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      inFlightAtKill = flows.started - flows.finished;
      await killHard(victim);
    })();
    await Promise.all([killer, ...workers]);
    running = await startChild(path, ownerId, port);
  });

  it('killed the server with tokens returned and flows still in progress', () => {
    assert.ok(returned.length >= TOKENS_BEFORE_KILL, `${returned.length} tokens`);
    assert.ok(used.length > 0);
    assert.ok(inFlightAtKill > 0, `${inFlightAtKill} flows in progress at the kill`);
  });

  it('accepts every token credential that was returned to a client, after the restart', async () => {
    const base = `http://127.0.0.1:${port}`;
    const failures: string[] = [];
    for (const token of returned) {
      const answer = await createSigningFetch({ client, token })(`${base}/api/me`);
      const body = await answer.text();
      if (answer.status !== 200) failures.push(`${answer.status} ${body}`);
      else assert.equal((JSON.parse(body) as { owner: { id: string } }).owner.id, ownerId);
    }
    assert.deepEqual(failures, []);
  });

  it('refuses every request whose nonce was used before the kill with nonce_used', async () => {
    for (const signed of used) {
      const answer = await fetch(signed.url, { headers: signed.headers });
      const body = await answer.text();
      assert.equal(answer.status, 401, body);
      assert.match(body, /oauth_problem=nonce_used/);
    }
  });
});
