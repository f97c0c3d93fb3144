// Shutdown under faults: `latchkey serve` on PostgreSQL + Redis is sent SIGTERM while its
// store refuses connections, answers nothing, or has been dropped. Whatever the store does,
// the process ends by itself (within shutdownTimeoutMs), non-zero when closing failed: the test
// awaits the child's exit event and checks its code and what it said; nothing kills it. And
// SIGTERM with a request in flight (on SQLite): it drains, answers it, and exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Agent as HttpAgent, createServer, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createSigningFetch, signRequest } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { openStore } from '../../src/store/index.ts';
import { baseEnv, bin, workspace } from '../cli/run-cli.ts';
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

/** A promise the test opens. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('latchkey serve drains on SIGTERM', () => {
  const space = workspace();
  after(() => space.remove());

  it('answers the gateway request in flight, refuses new connections, closes the connection, exits 0', async () => {
    // An upstream that holds each request until the test releases it: the gateway's request
    // stays in flight while serve closes.
    const release = gate();
    const arrived = gate();
    const upstream = createServer((_request, response) => {
      arrived.open();
      void release.promise.then(() => response.end('held'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    try {
      await space.ok(['users', 'add', '--username', 'dana', '--password-stdin'], {
        input: 'correct horse battery\n',
      });
      const client = JSON.parse(await space.ok(['clients', 'add', '--name', 'Drain', '--json']));
      const token = JSON.parse(
        await space.ok(['tokens', 'issue', '--client', client.key, '--user', 'dana', '--json']),
      );
      const child = spawn(
        process.execPath,
        [bin, 'serve', '--port', '0', '--upstream', upstreamUrl],
        {
          // A drain deadline past the whole stop's bound: only closing the connection once the
          // answer is out lets serve close the store and exit 0.
          env: {
            ...space.env,
            LATCHKEY_SHUTDOWN_TIMEOUT_MS: '5000',
            LATCHKEY_DRAIN_TIMEOUT_MS: '60000',
          },
        },
      );
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      let stderr = '';
      const closing = new Promise<void>((resolve) =>
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          if (/SIGTERM: closing/.test(stderr)) resolve();
        }),
      );
      try {
        const port = await new Promise<number>((resolve) => {
          let stdout = '';
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            stdout += chunk;
            const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
            if (match !== null) resolve(Number(match[1]));
          });
        });
        const signed = signRequest({
          method: 'GET',
          url: `http://127.0.0.1:${port}/held`,
          client: { key: client.key, secret: client.secret },
          token: { token: token.token, secret: token.secret },
        });
        // A keep-alive client, as a balancer is: it would hold the connection open after the
        // answer unless told to close it.
        const agent = new HttpAgent({ keepAlive: true });
        let closed: Promise<void> | undefined;
        const answered = new Promise<{ status: number; connection: string; body: string }>(
          (resolve, reject) => {
            const request = httpGet(signed.url, { headers: signed.headers, agent }, (response) => {
              closed = once(response.socket, 'close').then(() => undefined);
              let body = '';
              response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
              response.on('end', () =>
                resolve({
                  status: response.statusCode ?? 0,
                  connection: String(response.headers.connection),
                  body,
                }),
              );
            });
            request.on('error', reject);
          },
        );
        await arrived.promise;
        child.kill('SIGTERM');
        await closing;
        // The listener closes: a new connection is refused (once serve has got that far).
        for (;;) {
          const socket = connect(port, '127.0.0.1');
          const outcome = await new Promise<string | undefined>((resolve) => {
            socket.once('connect', () => resolve('accepted'));
            socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
          });
          socket.destroy();
          if (outcome === 'ECONNREFUSED') break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        release.open();
        // The gateway streams the upstream's answer past Fastify's onSend, so it says
        // keep-alive; serve closes the connection once it is out.
        assert.deepEqual(await answered, { status: 200, connection: 'keep-alive', body: 'held' });
        assert.ok(closed !== undefined);
        await closed;
        const [code, signal] = await within(HANG_MS, exited);
        assert.deepEqual([code, signal], [0, null], stderr);
        assert.match(stderr, /Closed\./);
        agent.destroy();
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    } finally {
      release.open();
      upstream.close();
    }
  });
});
