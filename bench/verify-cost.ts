// What one verification costs in CPU, in-process: no sockets, no HTTP, no load generator,
// so the figure is steadier on a shared machine than the req/s tables and shows what a
// change to the hot path gains. The provider verifies pre-signed /api/me requests (fresh
// nonce, current timestamp, token credentials) on a SQLite file store, as `latchkey serve`
// does, `batch` at a time (the requests one turn of the event loop reads: their nonces are
// committed together). Prints µs per verification for each round and the median. For where
// the time goes, add `--cpu-prof` (signing is in that profile too, but not in the figure).
//
//   node bench/verify-cost.ts [method=HMAC-SHA1] [requests=200000] [rounds=5] [batch=50]
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signRequest } from '../src/client/index.ts';
import { createProvider } from '../src/provider/index.ts';
import type { IncomingRequest } from '../src/provider/index.ts';
import { createSqliteStore } from '../src/store/index.ts';

const method = process.argv[2] ?? 'HMAC-SHA1';
const requests = Number(process.argv[3] ?? 200_000);
const rounds = Number(process.argv[4] ?? 5);
const batch = Number(process.argv[5] ?? 50);
const HOST = '127.0.0.1:8080';

const directory = mkdtempSync(join(tmpdir(), 'latchkey-verify-cost-'));
const store = createSqliteStore({ path: join(directory, 'latchkey.db') });
const provider = createProvider({ store });
try {
  const rsa = method.startsWith('RSA-')
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : undefined;
  const client = await provider.clients.register({
    name: 'Cost',
    signatureMethods: [method],
    publicKey: rsa?.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  });
  const owner = await provider.owners.create('cost-owner', 'cost-password');
  const token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });

  const sign = (): IncomingRequest => {
    const signed = signRequest({
      method: 'GET',
      url: `http://${HOST}/api/me`,
      client: { key: client.key, secret: client.secret, privateKey: rsa?.privateKey },
      token: { token: token.token, secret: token.secret },
      signatureMethod: method,
    });
    return {
      method: 'GET',
      scheme: 'http',
      host: HOST,
      path: '/api/me',
      query: '',
      authorization: signed.headers['Authorization'],
      contentType: undefined,
      body: undefined,
      secure: true,
    };
  };

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const microseconds = (started: bigint, count: number) =>
    Number(process.hrtime.bigint() - started) / count / 1000;

  const whole: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const signed = Array.from({ length: requests }, sign); // not timed
    const started = process.hrtime.bigint();
    for (let i = 0; i < requests; i += batch) {
      const verifications: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(i + batch, requests); j++) {
        verifications.push(provider.verifyResourceRequest(signed[j]!, { tokenRequired: true }));
      }
      await Promise.all(verifications);
    }
    const cost = microseconds(started, requests);
    if (round > 0) whole.push(cost); // round 0 warms the JIT
    console.log(`${round === 0 ? 'warm-up' : `round ${round}`}: ${cost.toFixed(2)} µs`);
  }
  console.log(`${method}: ${median(whole).toFixed(2)} µs per verification (median)`);
} finally {
  await provider.close();
  await store.close();
  rmSync(directory, { recursive: true, force: true });
}
