// Shutdown under faults: `latchkey serve` on PostgreSQL + Redis is sent SIGTERM while its
// store refuses connections, answers nothing, or has been dropped. Whatever the store does,
// the process ends by itself (within shutdownTimeoutMs), non-zero when closing failed: the test
// awaits the child's exit event and checks its code and what it said; nothing kills it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createSigningFetch } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { openStore } from '../../src/store/index.ts';
import { baseEnv, bin } from '../cli/run-cli.ts';
import { postgresUrl, redisUrl, servicesSkip } from '../ops/support.ts';
import { deleteKeys, dropSchema, runName } from '../stores/support-services.ts';
import { connectRedis } from '../../src/store/index.ts';
import { startProxy, within } from '../stores/support-faults.ts';
import type { Proxy } from '../stores/support-faults.ts';

const skip = await servicesSkip();

/** A hang bound for the test itself: far past every shutdown bound used here. */
const HANG_MS = 60_000;

interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly stderr: () => string;
  /** The exit event: [code, signal]. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** `latchkey serve` as an operator runs it, on `database` and Redis. */
async function serve(database: string, schema: string, prefix: string, shutdownMs: number) {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
    env: {
      ...baseEnv(),
      LATCHKEY_DATABASE: database,
      LATCHKEY_POSTGRES_SCHEMA: schema,
      LATCHKEY_REDIS: redisUrl,
      LATCHKEY_REDIS_PREFIX: prefix,
      LATCHKEY_LOG_LEVEL: 'silent',
      LATCHKEY_SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
    },
  });
  let stdout = '';
  let stderr = '';
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await within(
    HANG_MS,
    new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /^Latchkey listening on (\S+)$/m.exec(stdout);
        if (match !== null) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`serve exited: ${stdout}${stderr}`)));
    }),
  );
  return { child, url, stderr: () => stderr, exited } satisfies Served;
}

/** A client and a token in the deployment, made the way an operator's CLI would. */
async function seed(database: string, schema: string, prefix: string) {
  const store = await openStore(database, { redis: redisUrl, schema, redisPrefix: prefix });
  try {
    const provider = createProvider({ store });
    const client = await provider.clients.register({ name: 'Shutdown probe' });
    const owner = await provider.owners.create(`owner-${client.key}`, 'a long password');
    const token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    return createSigningFetch({
      client: { key: client.key, secret: client.secret },
      token: { token: token.token, secret: token.secret },
    });
  } finally {
    await store.close();
  }
}

/** Serves, answers one signed request (so closing has a last-use time to write), then `fault`. */
async function shutDownUnder(
  options: {
    /** What serve connects to (through the proxy), and where the test seeds (directly). */
    database: string;
    direct: string;
    schema: string;
    prefix: string;
    shutdownMs: number;
  },
  fault: () => Promise<void> | void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const signed = await seed(options.direct, options.schema, options.prefix);
  const served = await serve(options.database, options.schema, options.prefix, options.shutdownMs);
  try {
    const answer = await signed(`${served.url}/api/me`);
    assert.equal(answer.status, 200, await answer.text());
    await fault();
    served.child.kill('SIGTERM');
    const [code, signal] = await within(HANG_MS, served.exited);
    return { code, signal, stderr: served.stderr() };
  } finally {
    if (served.child.exitCode === null && served.child.signalCode === null) {
      served.child.kill('SIGKILL');
    }
  }
}

describe('latchkey serve ends on SIGTERM whatever the store is doing', { skip }, () => {
  const schema = runName('schema');
  const prefix = runName('prefix');
  const proxies: Proxy[] = [];
  const databases: string[] = [];
  const admin = () => new pg.Client({ connectionString: postgresUrl });

  after(async () => {
    for (const proxy of proxies) await proxy.close().catch(() => undefined);
    await dropSchema(schema).catch(() => undefined);
    const client = admin();
    await client.connect();
    for (const name of databases) {
      await client
        .query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)
        .catch(() => undefined);
    }
    await client.end();
    const redis = await connectRedis(redisUrl);
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  /** PostgreSQL through a proxy the test controls. */
  async function proxied(): Promise<{ proxy: Proxy; database: string }> {
    const url = new URL(postgresUrl);
    const proxy = await startProxy(Number(url.port || 5432));
    proxies.push(proxy);
    url.port = String(proxy.port);
    return { proxy, database: url.toString() };
  }

  it('unreachable: PostgreSQL refuses every connection', async () => {
    const { proxy, database } = await proxied();
    const ended = await shutDownUnder(
      { database, direct: postgresUrl, schema, prefix, shutdownMs: 10_000 },
      () => proxy.cut(),
    );
    assert.deepEqual([ended.code, ended.signal], [1, null], ended.stderr);
    assert.match(ended.stderr, /latchkey: (error while closing|not closed within)/);
  });

  it('frozen: connections stay open and nothing answers (the bound ends it)', async () => {
    const { proxy, database } = await proxied();
    // A bound shorter than the store's own query timeouts, so it is the bound that ends it.
    const ended = await shutDownUnder(
      { database, direct: postgresUrl, schema, prefix, shutdownMs: 500 },
      () => proxy.freeze(),
    );
    assert.deepEqual([ended.code, ended.signal], [1, null], ended.stderr);
    assert.match(
      ended.stderr,
      /latchkey: not closed within 500 ms \(shutdownTimeoutMs\); exiting\./,
    );
  });

  it('gone: the database was dropped under it', async () => {
    const name = `latchkey_gone_${randomBytes(6).toString('hex')}`;
    const client = admin();
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      databases.push(name);
      const url = new URL(postgresUrl);
      url.pathname = `/${name}`;
      const ended = await shutDownUnder(
        {
          database: url.toString(),
          direct: url.toString(),
          schema,
          prefix: `${prefix}gone:`,
          shutdownMs: 10_000,
        },
        async () => {
          await client.query(`DROP DATABASE ${pg.escapeIdentifier(name)} WITH (FORCE)`);
        },
      );
      // Ended by itself either way: non-zero when closing met the missing database (the last
      // writes had something to flush), zero when nothing was left to write to it.
      assert.equal(ended.signal, null, ended.stderr);
      if (ended.code === 0) assert.match(ended.stderr, /Closed\./);
      else {
        assert.equal(ended.code, 1, ended.stderr);
        assert.match(ended.stderr, /latchkey: (error while closing|not closed within)/);
      }
    } finally {
      await client.end();
    }
  });
});
