// Fresh, uniquely keyed records for the contract suite, so every test owns its data and the
// suite can run against a database other runs (or other suites) also use.
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type {
  NewClient,
  NewTemporaryCredential,
  NewTokenCredential,
  Owner,
  Store,
} from '../../../src/store/index.ts';

export type MakeStore = () => Promise<Store>;

/** A time well inside the present era (ms): every record of the suite lives around it. */
export const now = 1_750_000_000_000;
export const minute = 60_000;

export function unique(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** Opens one store for a describe block and closes it afterwards; call inside `describe`. */
export function useStore(makeStore: MakeStore): () => Store {
  let store: Store | undefined;
  before(async () => {
    store = await makeStore();
  });
  after(async () => {
    await store?.close();
  });
  return () => {
    if (store === undefined) throw new Error('The store is not open yet.');
    return store;
  };
}

export function newClient(overrides: Partial<NewClient> = {}): NewClient {
  return {
    key: unique('client'),
    secret: unique('secret'),
    name: 'Photo printer',
    description: 'Prints your photos.',
    website: 'https://printer.example',
    callbacks: ['https://printer.example/ready'],
    signatureMethods: ['HMAC-SHA256'],
    publicKey: null,
    constrainedDevice: false,
    verified: false,
    developerId: null,
    disabled: false,
    sessionExtension: false,
    scopes: [],
    ...overrides,
  };
}

export function newOwner(): Omit<Owner, 'createdAt'> {
  const id = unique('owner');
  const username = unique('user');
  return {
    id,
    source: 'local',
    subject: id,
    issuer: null,
    name: username,
    username,
    passwordHash: unique('hash'),
  };
}

/** An owner from an external identity source: no username, no password. */
export function newExternalOwner(
  source: 'oidc' | 'delegated' = 'delegated',
  issuer: string | null = source === 'oidc' ? 'https://idp.example' : null,
): Omit<Owner, 'createdAt'> {
  return {
    id: unique('owner'),
    source,
    subject: unique('subject'),
    issuer,
    name: 'Ada Lovelace',
    username: null,
    passwordHash: null,
  };
}

/** A client and an owner, created: what every credential test starts from. */
export async function createParties(store: Store): Promise<{ clientKey: string; ownerId: string }> {
  const client = await store.clients.create(newClient());
  const owner = await store.owners.create(newOwner());
  return { clientKey: client.key, ownerId: owner.id };
}

export function newTemporary(
  clientKey: string,
  overrides: Partial<NewTemporaryCredential> = {},
): NewTemporaryCredential {
  return {
    token: unique('temporary'),
    secret: unique('secret'),
    clientKey,
    callback: 'https://printer.example/ready',
    requestedScope: 'photos:read',
    createdAt: now,
    expiresAt: now + 10 * minute,
    ...overrides,
  };
}

export function newToken(
  clientKey: string,
  ownerId: string,
  overrides: Partial<NewTokenCredential> = {},
): NewTokenCredential {
  return {
    token: unique('token'),
    secret: unique('secret'),
    clientKey,
    ownerId,
    scope: 'photos:read',
    issuedAt: now,
    expiresAt: null,
    ...overrides,
  };
}

/** An owner's approval (§2.2) as authorize() takes it. */
export function grantFor(ownerId: string) {
  return { ownerId, verifier: unique('verifier'), scope: 'photos:read', lifetime: 3600 };
}

/** An issued credential of a fresh client, plus an owner to approve it. */
export async function issued(store: Store) {
  const parties = await createParties(store);
  const temporary = newTemporary(parties.clientKey);
  await store.temporaryCredentials.create(temporary);
  return { ...parties, temporary, token: temporary.token };
}

/** An issued credential, approved by its owner at `now`. */
export async function authorized(store: Store) {
  const fixture = await issued(store);
  const grant = grantFor(fixture.ownerId);
  assert.equal(await store.temporaryCredentials.authorize(fixture.token, grant, now), true);
  return { ...fixture, grant };
}
