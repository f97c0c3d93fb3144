// Contract: TransferStore (src/store/types.ts), the bulk path of `latchkey import` and
// `latchkey export`: whole rows with their times, one atomic transaction per batch, pages in
// key order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreConflictError } from '../../../src/store/index.ts';
import type { Client, Store, TokenCredential, TransferWrites } from '../../../src/store/index.ts';
import { minute, newClient, newOwner, newToken, now, unique } from './fixtures.ts';

const none: TransferWrites = {
  createClients: [],
  replaceClients: [],
  createTokens: [],
  replaceTokens: [],
};

function client(overrides: Partial<Client> = {}): Client {
  return {
    ...newClient(),
    sessionExtension: false,
    rememberConsent: 'never',
    tokenResponseIdentity: false,
    scopes: [],
    requestsPerMinute: null,
    failuresPerMinute: null,
    createdAt: now - 5 * minute,
    ...overrides,
  };
}

function token(clientKey: string, ownerId: string, overrides: Partial<TokenCredential> = {}) {
  return {
    ...newToken(clientKey, ownerId),
    lastUsedAt: now + minute,
    deviceHint: null,
    revokedAt: null,
    sessionHandleHash: null,
    sessionExpiresAt: null,
    ...overrides,
  } satisfies TokenCredential;
}

export function describeTransfer(store: () => Store): void {
  describe('bulk transfer (latchkey import and export)', () => {
    it('creates clients and tokens with every field as given, times included', async () => {
      const owner = await store().owners.create(newOwner());
      const given = client({
        disabled: true,
        verified: true,
        sessionExtension: true,
        callbacks: ['https://a.example/cb'],
        scopes: ['read', 'write'],
      });
      const tokens = [
        token(given.key, owner.id),
        token(given.key, owner.id, {
          sessionHandleHash: 'a'.repeat(64),
          sessionExpiresAt: now + 90 * minute,
        }),
        token(given.key, owner.id, { revokedAt: now + 2 * minute, expiresAt: now + 60 * minute }),
        token(given.key, owner.id, { deviceHint: 'PhotoFrame/2.1 (Android 14)' }),
      ];
      await store().transfer.writeBatch({ clients: [given.key], tokens: [] }, () => ({
        writes: { ...none, createClients: [given], createTokens: tokens },
        result: undefined,
      }));
      assert.deepEqual(await store().clients.find(given.key), given);
      for (const expected of tokens) {
        assert.deepEqual(await store().tokenCredentials.find(expected.token), expected);
      }
    });

    it('hands the plan the rows stored under the keys, and replaces whole rows', async () => {
      const owner = await store().owners.create(newOwner());
      const stored = await store().clients.create(newClient());
      const issued = await store().tokenCredentials.create(newToken(stored.key, owner.id));
      const missing = unique('missing');
      const seen = await store().transfer.writeBatch(
        { clients: [stored.key, missing], tokens: [issued.token] },
        (existing) => ({
          writes: {
            ...none,
            replaceClients: [
              { ...existing.clients.get(stored.key)!, name: 'Replaced', scopes: ['read'] },
            ],
            replaceTokens: [{ ...existing.tokens.get(issued.token)!, scope: 'other' }],
          },
          result: {
            clients: [...existing.clients.keys()],
            tokens: [...existing.tokens.values()],
          },
        }),
      );
      assert.deepEqual(seen, { clients: [stored.key], tokens: [issued] });
      assert.equal((await store().clients.find(stored.key))?.name, 'Replaced');
      assert.deepEqual((await store().clients.find(stored.key))?.scopes, ['read']);
      assert.equal((await store().tokenCredentials.find(issued.token))?.scope, 'other');
    });

    it('writes nothing of a batch that fails: a token of an unknown client undoes its client', async () => {
      const owner = await store().owners.create(newOwner());
      const given = client();
      const orphan = token(unique('no-such-client'), owner.id);
      await assert.rejects(
        store().transfer.writeBatch({ clients: [given.key], tokens: [orphan.token] }, () => ({
          writes: { ...none, createClients: [given], createTokens: [orphan] },
          result: undefined,
        })),
      );
      assert.equal(await store().clients.find(given.key), undefined);
      assert.equal(await store().tokenCredentials.find(orphan.token), undefined);
    });

    it('fails a batch that creates a row whose key exists with StoreConflictError, writing nothing', async () => {
      const stored = await store().clients.create(newClient());
      const fresh = client();
      await assert.rejects(
        store().transfer.writeBatch({ clients: [], tokens: [] }, () => ({
          writes: {
            ...none,
            createClients: [fresh, client({ key: stored.key, name: 'Duplicate' })],
          },
          result: undefined,
        })),
        StoreConflictError,
      );
      assert.equal(await store().clients.find(fresh.key), undefined);
      assert.equal((await store().clients.find(stored.key))?.name, stored.name);
    });

    it('pages clients and tokens in key order, after a given key', async () => {
      const owner = await store().owners.create(newOwner());
      const prefix = unique('page');
      const keys = ['b', 'a', 'c'].map((letter) => `${prefix}-${letter}`);
      for (const key of keys) await store().clients.create(newClient({ key }));
      for (const key of keys) {
        await store().tokenCredentials.create(newToken(keys[0]!, owner.id, { token: `${key}-t` }));
      }
      const clients = await store().transfer.clientsAfter(`${prefix}-a`, 2);
      assert.deepEqual(
        clients.map((c) => c.key),
        [`${prefix}-b`, `${prefix}-c`],
      );
      const tokens = await store().transfer.tokensAfter(`${prefix}-a-t`, 1);
      assert.deepEqual(
        tokens.map((t) => t.token),
        [`${prefix}-b-t`],
      );
      const first = await store().transfer.clientsAfter(undefined, 1);
      assert.equal(first.length, 1);
    });
  });
}
