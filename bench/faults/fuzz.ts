/**
 * `node bench/faults/fuzz.ts [--requests N] [--seed S] [--concurrency C]`: the project's HTTP
 * fuzzer (the inputs of test/http/fuzz.test.ts) in bench mode, against the real
 * `latchkey serve` on a fresh SQLite file, for N requests (default 1,000,000). Each request is
 * one of: an arbitrary Authorization header on /api/me; an arbitrary query string or form
 * body and content type on /api/me and the flow endpoints; a validly signed request with one
 * character of its Authorization header changed; a signed request whose signature was changed
 * (bad by construction); a signed request whose query value was changed after signing (bad
 * by construction). Every thousandth request is a well-formed signed one, which must be
 * accepted. Counts: server errors (any 5xx), crashes (the server process ending), accepted
 * bad signatures, refused good requests. Exits 1 unless all four are 0. Seeded: the same seed
 * sends the same requests.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { signRequest } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import {
  bodies,
  contentTypes,
  FUZZ_SEED,
  lineSafe,
  rawRequest,
  text,
  withSignatureChanged,
} from '../../test/http/support/fuzz-cases.ts';
import { sendBytes } from '../../test/http/support/raw-socket.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: String(FUZZ_SEED) },
    concurrency: { type: 'string', default: '32' },
  },
});
const total = Number(values.requests);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
const BATCH = 1000;

const dir = mkdtempSync(join(tmpdir(), 'latchkey-fuzz-'));
const database = join(dir, 'latchkey.db');
const store = createSqliteStore({ path: database });
const provider = createProvider({ store });
// Not throttled (429 before verification after 600 failures a minute): the fuzz is about
// what verification does with bad requests.
const registered = await provider.clients.register({ name: 'Fuzz' });
await provider.clients.update(registered.key, { failuresPerMinute: 1_000_000_000 });
const owner = await provider.owners.create('fuzz-owner', 'a long password');
const issued = await provider.tokens.issue({ clientKey: registered.key, ownerId: owner.id });
await store.close();
const client = { key: registered.key, secret: registered.secret };
const token = { token: issued.token, secret: issued.secret };

const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('../../bin/latchkey.js', import.meta.url)), 'serve', '--port', '0'],
  {
    env: { ...process.env, LATCHKEY_DATABASE: database, LATCHKEY_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const exited = once(child, 'exit');
let crashed = false;
void exited.then(() => (crashed = true));
const port = await new Promise<number>((resolve, reject) => {
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const match = /^Latchkey listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(output);
    if (match !== null) resolve(Number(match[1]));
  });
  void exited.then(() => reject(new Error(`latchkey serve ended: ${output}`)));
});
const host = `127.0.0.1:${port}`;
const paths = ['/api/me', '/oauth/request_token', '/oauth/access_token'];

type Kind = 'header' | 'query' | 'body' | 'one-char' | 'bad-signature' | 'changed-query' | 'good';
interface Case {
  readonly kind: Kind;
  readonly bytes: Buffer;
}

function signed(query: string) {
  return signRequest({ method: 'GET', url: `http://${host}/api/me?${query}`, client, token });
}

/** One batch of cases, from the seed and the batch's number: the same every run. */
function batch(number: number): Case[] {
  const shapes = fc.oneof(
    fc.tuple(fc.constant('header' as const), text, fc.constantFrom('OAuth ', 'oauth ', '')),
    fc.tuple(fc.constant('query' as const), text, fc.constantFrom(...paths)),
    fc.tuple(fc.constant('body' as const), bodies, contentTypes, fc.constantFrom(...paths)),
    fc.tuple(fc.constant('one-char' as const), fc.nat(), fc.string({ minLength: 1, maxLength: 1 })),
    fc.tuple(fc.constant('bad-signature' as const), fc.nat(), fc.nat()),
    fc.tuple(fc.constant('changed-query' as const), fc.string({ minLength: 1, maxLength: 6 })),
  );
  const cases = fc.sample(shapes, { numRuns: BATCH, seed: seed + number });
  return cases.map((shape, i): Case => {
    if (i === 0) {
      const good = signed('a=1');
      return {
        kind: 'good',
        bytes: rawRequest(host, 'GET', Buffer.from(new URL(good.url).pathname + '?a=1'), [
          ['Authorization', lineSafe(good.headers['Authorization']!)],
        ]),
      };
    }
    switch (shape[0]) {
      case 'header':
        return {
          kind: 'header',
          bytes: rawRequest(host, 'GET', Buffer.from('/api/me'), [
            ['Authorization', lineSafe(shape[2] + shape[1])],
          ]),
        };
      case 'query':
        return {
          kind: 'query',
          bytes: rawRequest(
            host,
            'GET',
            lineSafe(`${shape[2]}?${shape[1]}`.replace(/[ \t]/g, '%20')),
            [],
          ),
        };
      case 'body':
        return {
          kind: 'body',
          bytes: rawRequest(
            host,
            'POST',
            Buffer.from(shape[3]),
            [['Content-Type', Buffer.from(shape[2])]],
            shape[1],
          ),
        };
      case 'one-char': {
        const header = signed('a=1').headers['Authorization']!;
        const at = shape[1] % header.length;
        const changed = header.slice(0, at) + shape[2] + header.slice(at + 1);
        return {
          kind: 'one-char',
          bytes: rawRequest(host, 'GET', Buffer.from('/api/me?a=1'), [
            ['Authorization', lineSafe(changed)],
          ]),
        };
      }
      case 'bad-signature': {
        const header = withSignatureChanged(
          signed('a=1').headers['Authorization']!,
          shape[1],
          shape[2],
        );
        return {
          kind: 'bad-signature',
          bytes: rawRequest(host, 'GET', Buffer.from('/api/me?a=1'), [
            ['Authorization', lineSafe(header)],
          ]),
        };
      }
      case 'changed-query': {
        const header = signed('a=1').headers['Authorization']!;
        const value = encodeURIComponent(shape[1] === '1' ? '2' : shape[1]);
        return {
          kind: 'changed-query',
          bytes: rawRequest(host, 'GET', Buffer.from(`/api/me?a=${value}`), [
            ['Authorization', lineSafe(header)],
          ]),
        };
      }
    }
  });
}

const statuses = new Map<number, number>();
const serverErrors: string[] = [];
let serverErrorCount = 0;
const acceptedBad: string[] = [];
const refusedGood: string[] = [];
let connectionErrors = 0;
let sent = 0;
const started = performance.now();

async function send(item: Case): Promise<void> {
  try {
    const answer = await sendBytes(port, item.bytes);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const shown = () => item.bytes.toString('latin1').slice(0, 300);
    if (answer.status >= 500) {
      serverErrorCount++;
      if (serverErrors.length < 20) serverErrors.push(`${answer.status} ${shown()}`);
    }
    const bad = item.kind === 'bad-signature' || item.kind === 'changed-query';
    if (bad && answer.status < 400) acceptedBad.push(shown());
    if (item.kind === 'good' && answer.status !== 200)
      refusedGood.push(`${answer.status} ${answer.body}`);
  } catch {
    connectionErrors++;
  }
}

for (let number = 0; sent < total && !crashed; number++) {
  const cases = batch(number).slice(0, total - sent);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < cases.length && !crashed) await send(cases[next++]!);
    }),
  );
  sent += cases.length;
  if (sent % 50_000 < BATCH || sent === total) {
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${sent.toLocaleString('en-US')} requests, ${Math.round(sent / seconds)} a second; ` +
        `5xx ${serverErrorCount}, accepted bad signatures ${acceptedBad.length}, ` +
        `good refused ${refusedGood.length}, connection errors ${connectionErrors}`,
    );
  }
}

const seconds = (performance.now() - started) / 1000;
child.kill('SIGTERM');
const [code] = await exited;
rmSync(dir, { recursive: true, force: true });
const summary = {
  seed,
  requests: sent,
  seconds: Math.round(seconds),
  perSecond: Math.round(sent / seconds),
  statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
  serverErrors: serverErrorCount,
  crashes: crashed && code !== 0 ? 1 : 0,
  exitCode: code,
  acceptedBadSignatures: acceptedBad.length,
  refusedGood: refusedGood.length,
  connectionErrors,
};
console.log(JSON.stringify(summary));
for (const line of [...serverErrors, ...acceptedBad, ...refusedGood].slice(0, 20))
  console.log(line);
const clean =
  summary.serverErrors === 0 &&
  code === 0 &&
  summary.acceptedBadSignatures === 0 &&
  summary.refusedGood === 0 &&
  sent === total;
process.exit(clean ? 0 : 1);
