// The PostgreSQL adapter: the shared store contract, alone and with Redis for nonces and
// login counters, each against a schema (and key prefix) of its own, removed afterwards; plus
// what only the shared store promises: migrations that instances may race to apply,
// atomic transitions across instances, and bounded failure with recovery when the database
// goes away.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import pg from 'pg';
import {
  connectRedis,
  createPostgresStore,
  openStore,
  StoreUnavailableError,
  type Store,
} from '../../src/store/index.ts';
import { migrate, migrations, schemaVersion } from '../../src/store/postgres/index.ts';
import { requirement } from '../support/requirements.ts';
import { describeStoreContract } from './contract.ts';
import { authorized, createParties, newOwner, newToken, now } from './contract/fixtures.ts';
import { eventually, startProxy, within } from './support-faults.ts';
import {
  deleteKeys,
  dropSchema,
  postgresUrl,
  probePostgres,
  probeRedis,
  redisUrl,
  runName,
} from './support-services.ts';

const postgresSkip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const redisSkip = requirement('Redis at 127.0.0.1:6379', await probeRedis());

const schemas: string[] = [];
function freshSchema(): string {
  const schema = runName('schema');
  schemas.push(schema);
  return schema;
}

describe('PostgreSQL', { skip: postgresSkip }, () => {
  after(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  const contractSchema = freshSchema();
  describeStoreContract('PostgreSQL', () =>
    createPostgresStore({ connectionString: postgresUrl, schema: contractSchema }),
  );

  describe('with Redis', { skip: redisSkip }, () => {
    const schema = freshSchema();
    const prefix = runName('prefix');
    let redis: Redis | undefined;
    before(async () => {
      redis = await connectRedis(redisUrl);
    });
    after(async () => {
      if (redis === undefined) return;
      await deleteKeys(redis, prefix);
      redis.disconnect();
    });
    describeStoreContract('PostgreSQL + Redis', async () => {
      if (redis === undefined) throw new Error('Redis is not connected yet.');
      return createPostgresStore({
        connectionString: postgresUrl,
        schema,
        redis,
        redisPrefix: prefix,
      });
    });
  });

  describe('PostgreSQL store: migrations', () => {
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 4 });
    after(() => pool.end());

    it('brings a new schema to the newest version', async () => {
      const schema = freshSchema();
      assert.equal(await migrate(pool, schema), migrations.length);
      assert.equal(await schemaVersion(pool, schema), migrations.length);
    });

    it('applies nothing to a schema that is already current', async () => {
      const schema = freshSchema();
      await migrate(pool, schema);
      assert.equal(await migrate(pool, schema), 0);
      assert.equal(await schemaVersion(pool, schema), migrations.length);
    });

    it('lets two instances starting together on a new schema both succeed, migrating once', async () => {
      const schema = freshSchema();
      const open = () => createPostgresStore({ connectionString: postgresUrl, schema });
      const stores = await Promise.all([open(), open()]);
      for (const store of stores) assert.equal(await store.ping(), true);
      await Promise.all(stores.map((store) => store.close()));
      const applied = await pool.query(
        `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.schema_migrations`,
      );
      assert.equal(applied.rows[0]?.n, migrations.length);
    });

    it('turns the accounts of a version 1 schema into local owners, keeping their tokens', async () => {
      const schema = freshSchema();
      const name = pg.escapeIdentifier(schema);
      await pool.query(`CREATE SCHEMA ${name}`);
      const client = await pool.connect();
      try {
        await client.query(`SET search_path TO ${name}`);
        const first = migrations[0];
        assert.equal(typeof first, 'string', 'the first schema is SQL text');
        await client.query(first as string);
        await client.query(`
          CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL);
          INSERT INTO schema_migrations VALUES (1, 0);
          INSERT INTO owners VALUES ('owner-1', 'alice', 'scrypt$hash', 1);
          INSERT INTO clients VALUES ('client-1', 's', 'App', '', NULL, '{}', '{}', NULL, false, false, NULL, 1);
          INSERT INTO token_credentials VALUES ('token-1', 's', 'client-1', 'owner-1', 'read', 1, NULL, NULL, NULL);
        `);
      } finally {
        client.release();
      }
      const store = await createPostgresStore({ connectionString: postgresUrl, schema });
      try {
        assert.deepEqual(await store.owners.findById('owner-1'), {
          id: 'owner-1',
          source: 'local',
          subject: 'owner-1',
          issuer: null,
          name: 'alice',
          username: 'alice',
          passwordHash: 'scrypt$hash',
          createdAt: 1,
        });
        assert.equal((await store.tokenCredentials.find('token-1'))?.ownerId, 'owner-1');
      } finally {
        await store.close();
      }
    });

    it('refuses a schema newer than it knows, saying so', async () => {
      const schema = freshSchema();
      await migrate(pool, schema);
      await pool.query(
        `INSERT INTO ${pg.escapeIdentifier(schema)}.schema_migrations VALUES ($1, 0)`,
        [migrations.length + 1],
      );
      await assert.rejects(
        createPostgresStore({ connectionString: postgresUrl, schema }),
        /newer than this Latchkey knows/,
      );
    });

    it('refuses a schema name that is not a plain identifier', async () => {
      await assert.rejects(
        createPostgresStore({ connectionString: postgresUrl, schema: 'a"; DROP SCHEMA x; --' }),
        TypeError,
      );
    });
  });

  describe('PostgreSQL store: two instances on one database', () => {
    const schema = freshSchema();
    let stores: Store[] = [];
    before(async () => {
      const open = () => createPostgresStore({ connectionString: postgresUrl, schema });
      stores = await Promise.all([open(), open()]);
    });
    after(() => Promise.all(stores.map((store) => store.close())));
    const one = () => stores[0]!;
    const other = () => stores[1]!;

    it('RFC 5849 §3.3: refuses on one instance a nonce first used on the other', async () => {
      const key = { clientKey: 'c', token: '', timestamp: 1_750_000_000, nonce: runName('prefix') };
      assert.equal(await one().nonces.remember(key, key.timestamp + 300), true);
      assert.equal(await other().nonces.remember(key, key.timestamp + 300), false);
    });

    it('RFC 5849 §2.3: lets exactly one of concurrent exchanges on two instances succeed', async () => {
      const { token, clientKey, ownerId } = await authorized(one());
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 === 0 ? one() : other()).temporaryCredentials.exchange(
            token,
            clientKey,
            now,
            newToken(clientKey, ownerId),
          ),
        ),
      );
      assert.equal(results.filter((result) => result !== undefined).length, 1);
    });

    it('revokes a token once across instances', async () => {
      const { clientKey, ownerId } = await createParties(one());
      const created = await one().tokenCredentials.create(newToken(clientKey, ownerId));
      const revoked = await Promise.all([
        one().tokenCredentials.revoke(created.token, now),
        other().tokenCredentials.revoke(created.token, now),
      ]);
      assert.deepEqual(revoked.sort(), [false, true]);
    });
  });

  describe('PostgreSQL store: faults', () => {
    it('rejects with StoreUnavailableError, not a hang, when nothing listens on the port', async () => {
      const store = await createPostgresStore({
        connectionString: 'postgres://postgres@127.0.0.1:1/test',
        migrate: false,
      });
      await assert.rejects(within(3000, store.owners.findById('x')), StoreUnavailableError);
      assert.equal(await within(3000, store.ping()), false);
      await store.close();
    });

    it('fails to open with StoreUnavailableError when the database is unreachable', async () => {
      await assert.rejects(
        within(
          3000,
          createPostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/x' }),
        ),
        StoreUnavailableError,
      );
    });

    it('rejects with StoreUnavailableError when the database stops answering', async () => {
      const proxy = await startProxy(5432);
      const url = `postgres://postgres@127.0.0.1:${proxy.port}/test`;
      const store = await createPostgresStore({ connectionString: url, schema: freshSchema() });
      try {
        proxy.freeze();
        await assert.rejects(within(4000, store.owners.findById('x')), StoreUnavailableError);
      } finally {
        await store.close();
        await proxy.close();
      }
    });

    it('serves again by itself once the database is back, without a restart', async () => {
      const proxy = await startProxy(5432);
      const url = `postgres://postgres@127.0.0.1:${proxy.port}/test`;
      const store = await createPostgresStore({ connectionString: url, schema: freshSchema() });
      try {
        const owner = await store.owners.create(newOwner());
        await proxy.cut();
        await assert.rejects(within(3000, store.owners.findById(owner.id)), StoreUnavailableError);
        await proxy.restore();
        assert.deepEqual(await eventually(5000, () => store.owners.findById(owner.id)), owner);
      } finally {
        await store.close();
        await proxy.close();
      }
    });
  });

  describe('openStore: the backend chosen by URL', () => {
    it('opens a SQLite file for a path', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'latchkey-open-'));
      try {
        const store = await openStore(join(directory, 'latchkey.db'));
        assert.equal(await store.ping(), true);
        await store.close();
        assert.equal(existsSync(join(directory, 'latchkey.db')), true);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it('opens PostgreSQL, in the given schema, for a postgresql:// URL', async () => {
      const schema = freshSchema();
      const url = postgresUrl.replace(/^postgres:/, 'postgresql:');
      const store = await openStore(url, { schema });
      const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
      try {
        assert.equal(await store.ping(), true);
        assert.equal(await schemaVersion(pool, schema), migrations.length);
      } finally {
        await store.close();
        await pool.end();
      }
    });

    it('keeps nonces in Redis, not PostgreSQL, when a redis:// URL is also given', async (t) => {
      if (redisSkip !== false) return t.skip(redisSkip);
      const schema = freshSchema();
      const redisPrefix = runName('prefix');
      const store = await openStore(postgresUrl, { schema, redis: redisUrl, redisPrefix });
      const redis = await connectRedis(redisUrl);
      const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
      try {
        const key = { clientKey: 'c', token: '', timestamp: 1_750_000_000, nonce: 'n' };
        assert.equal(await store.nonces.remember(key, key.timestamp + 300), true);
        assert.equal(await redis.exists(`${redisPrefix}nonce:${key.timestamp}`), 1);
        const rows = await pool.query(`SELECT 1 FROM ${pg.escapeIdentifier(schema)}.nonces`);
        assert.equal(rows.rowCount, 0);
      } finally {
        await store.close();
        await deleteKeys(redis, redisPrefix);
        redis.disconnect();
        await pool.end();
      }
    });

    it('refuses a Redis URL beside a SQLite path', async () => {
      await assert.rejects(openStore('data/x.db', { redis: redisUrl }), TypeError);
    });
  });
});
