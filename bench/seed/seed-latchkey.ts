/**
 * Provisions a Latchkey database for a benchmark (not measured): an HMAC client, an
 * RSA-SHA1 client (2048-bit key), one owner, and N token credentials. The first token is
 * issued through the provider; the rest are clones of its row inserted with SQL in one
 * transaction, since a million provider calls would take minutes. Prints one JSON line:
 * the credentials the load generator signs with, and a sample of tokens spread over the table.
 *
 * Usage: node bench/seed/seed-latchkey.ts --database FILE [--tokens N] [--sample N]
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';

export interface SeededCredentials {
  readonly hmacClient: { readonly key: string; readonly secret: string };
  readonly rsaClient: { readonly key: string; readonly privateKeyPem: string };
  readonly ownerId: string;
  readonly username: string;
  readonly token: { readonly token: string; readonly secret: string };
  readonly rsaToken: { readonly token: string; readonly secret: string };
  /** Token credentials spread evenly over the stored ones (the HMAC client's). */
  readonly sample: readonly { readonly token: string; readonly secret: string }[];
  readonly tokens: number;
}

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    tokens: { type: 'string', default: '1' },
    sample: { type: 'string', default: '1000' },
  },
});
const path = values.database;
if (path === undefined) throw new Error('--database FILE is required');
const total = Math.max(1, Number(values.tokens));
const sampleSize = Math.min(total, Math.max(1, Number(values.sample)));

const store = createSqliteStore({ path });
const provider = createProvider({ store });
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const hmacClient = await provider.clients.register({ name: 'Bench HMAC client' });
const rsaClient = await provider.clients.register({
  name: 'Bench RSA client',
  signatureMethods: ['RSA-SHA1'],
  publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
});
const owner = await provider.owners.create('bench-owner', 'bench-password');
const first = await provider.tokens.issue({ clientKey: hmacClient.key, ownerId: owner.id });
const rsaToken = await provider.tokens.issue({ clientKey: rsaClient.key, ownerId: owner.id });
await provider.close();
await store.close();

const sample = [{ token: first.token, secret: first.secret }];
if (total > 1) {
  const db = new DatabaseSync(path);
  const template = db.prepare('SELECT * FROM token_credentials WHERE token = ?').get(first.token)!;
  const columns = Object.keys(template);
  const insert = db.prepare(
    `INSERT INTO token_credentials (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  const every = Math.floor(total / sampleSize);
  db.exec('BEGIN');
  for (let i = 1; i < total; i++) {
    const token = randomBytes(16).toString('base64url');
    const secret = randomBytes(24).toString('base64url');
    const row: Record<string, unknown> = { ...template, token, secret };
    insert.run(...columns.map((c) => row[c] as string | number | null));
    if (i % every === 0 && sample.length < sampleSize) sample.push({ token, secret });
  }
  db.exec('COMMIT');
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

const seeded: SeededCredentials = {
  hmacClient: { key: hmacClient.key, secret: hmacClient.secret },
  rsaClient: {
    key: rsaClient.key,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  },
  ownerId: owner.id,
  username: owner.name,
  token: { token: first.token, secret: first.secret },
  rsaToken: { token: rsaToken.token, secret: rsaToken.secret },
  sample,
  tokens: total + 1,
};
process.stdout.write(`${JSON.stringify(seeded)}\n`);
