// Child process for the kill -9 durability test (sqlite.test.ts): writes token credentials
// and nonces to the store at argv[2] forever, printing each one only after its write has
// resolved, until the parent kills it.
import { randomUUID } from 'node:crypto';
import { createSqliteStore } from '../../src/store/index.ts';
import { localOwnerRecord } from '../support/owners.ts';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: sqlite-writer.ts <database path>');

const store = createSqliteStore({ path });
const clientKey = `client-${randomUUID()}`;
const ownerId = `owner-${randomUUID()}`;
await store.clients.create({
  key: clientKey,
  secret: 's',
  name: 'writer',
  description: '',
  website: null,
  callbacks: [],
  signatureMethods: [],
  publicKey: null,
  constrainedDevice: false,
  verified: false,
  developerId: null,
  disabled: false,
});
await store.owners.create(localOwnerRecord({ id: ownerId, username: ownerId, passwordHash: 'h' }));

const timestamp = Math.floor(Date.now() / 1000);
// Bounded, so an orphan cannot run forever if the parent dies first.
for (let i = 0; i < 1_000_000; i += 1) {
  const token = `token-${randomUUID()}`;
  await store.tokenCredentials.create({
    token,
    secret: 's',
    clientKey,
    ownerId,
    scope: '',
    issuedAt: Date.now(),
    expiresAt: null,
  });
  process.stdout.write(`token ${token}\n`);
  const key = { clientKey, token, timestamp, nonce: randomUUID() };
  if (await store.nonces.remember(key, timestamp + 3600)) {
    process.stdout.write(`nonce ${JSON.stringify(key)}\n`);
  }
}
