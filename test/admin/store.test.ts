// The admin token store on each adapter: a token is kept by name with only its digest, found
// by its id, listed by name, a taken name refused, and removed.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  createPostgresStore,
  createSqliteStore,
  StoreConflictError,
  type Store,
} from '../../src/store/index.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';

function describeAdminTokenStore(
  label: string,
  makeStore: () => Promise<Store>,
  skip?: string | false,
) {
  describe(`Admin token store (${label})`, { skip }, () => {
    it('creates, finds, lists, refuses a taken name, and removes', async () => {
      const store = await makeStore();
      try {
        const token = {
          id: '0123456789abcdef',
          name: 'zed',
          role: 'support' as const,
          digest: 'digest-of-the-secret',
          createdAt: 1_700_000_000_000,
          expiresAt: null,
        };
        assert.deepEqual(await store.adminTokens.create(token), token);
        await store.adminTokens.create({
          ...token,
          id: 'fedcba9876543210',
          name: 'amy',
          role: 'auditor',
          expiresAt: 1_800_000_000_000,
        });
        assert.deepEqual(await store.adminTokens.find(token.id), token);
        assert.equal(await store.adminTokens.find('ffffffffffffffff'), undefined);
        assert.deepEqual(
          (await store.adminTokens.list()).map((t) => [t.name, t.role, t.expiresAt]),
          [
            ['amy', 'auditor', 1_800_000_000_000],
            ['zed', 'support', null],
          ],
        );
        await assert.rejects(
          store.adminTokens.create({ ...token, id: '1111111111111111' }),
          StoreConflictError,
        );
        assert.equal(await store.adminTokens.remove('zed'), true);
        assert.equal(await store.adminTokens.remove('zed'), false);
        assert.equal(await store.adminTokens.find(token.id), undefined);
      } finally {
        await store.close();
      }
    });
  });
}

describeAdminTokenStore('SQLite', async () => createSqliteStore({ path: ':memory:' }));

const skip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const schema = runName('schema');
describeAdminTokenStore(
  'PostgreSQL',
  () => createPostgresStore({ connectionString: postgresUrl, schema }),
  skip,
);
after(async () => {
  if (!skip) await dropSchema(schema);
});
