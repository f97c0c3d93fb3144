// RFC 5849 §3.3: a nonce is unique for its (client, token, timestamp); the timestamp window
// only bounds how long it must be remembered. So the window must not be part of the key
// under which a used nonce is found: a request used under a 300-second window is refused
// again after a restart with a 600-second window, and by an instance with another window,
// on every store (SQLite, PostgreSQL, PostgreSQL + Redis). Real HTTP; every request is
// signed for one public host and sent to each instance with that Host header.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { signRequest } from '../../src/client/index.ts';
import type { SignedRequest } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { connectRedis, createPostgresStore, createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store } from '../../src/store/index.ts';
import { send } from '../conformance/support/http.ts';
import { assertOk, assertProblem } from '../conformance/support/wire.ts';
import { requirement } from '../support/requirements.ts';
import {
  deleteKeys,
  dropSchema,
  postgresUrl,
  probePostgres,
  probeRedis,
  redisUrl,
  runName,
} from '../stores/support-services.ts';

const HOST = 'latchkey.test';

interface Instance {
  readonly store: Store;
  readonly port: number;
  stop(): Promise<void>;
}

/** An app on `store` with the given window (its own provider, as its own process would). */
async function instance(store: Store, windowSeconds: number): Promise<Instance> {
  const provider = createProvider({ store, policy: { timestampWindowSeconds: windowSeconds } });
  const app = await buildApp({ provider, maintenance: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    store,
    port: (app.server.address() as AddressInfo).port,
    async stop() {
      await app.close();
    },
  };
}

function signedFor(client: Client): SignedRequest {
  return signRequest({
    method: 'GET',
    url: `http://${HOST}/api/me?n=1`,
    client: { key: client.key, secret: client.secret },
  });
}

function sendTo(target: Instance, request: SignedRequest) {
  return send({
    method: request.method,
    url: `http://127.0.0.1:${target.port}/api/me?n=1`,
    headers: { ...request.headers, Host: HOST },
  });
}

describe('Nonces: the timestamp window is not part of the key (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-nonce-window-'));
  const path = join(dir, 'latchkey.db');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses after a restart with a 600-second window a request used under 300', async () => {
    let store = createSqliteStore({ path });
    let server = await instance(store, 300);
    const client = await createProvider({ store }).clients.register({ name: 'Window app' });
    const request = signedFor(client);
    assertOk(await sendTo(server, request));
    await server.stop();
    await store.close();

    store = createSqliteStore({ path });
    server = await instance(store, 600);
    try {
      assertProblem(await sendTo(server, request), 401, 'nonce_used');
    } finally {
      await server.stop();
      await store.close();
    }
  });

  it('refuses on an instance with a 600-second window a request another with 300 accepted (one file, two processes)', async () => {
    const first = await instance(createSqliteStore({ path }), 300);
    const second = await instance(createSqliteStore({ path }), 600);
    try {
      const client = await createProvider({ store: first.store }).clients.register({
        name: 'Two windows',
      });
      const request = signedFor(client);
      assertOk(await sendTo(first, request));
      assertProblem(await sendTo(second, request), 401, 'nonce_used');
      const other = signedFor(client);
      assertOk(await sendTo(second, other));
      assertProblem(await sendTo(first, other), 401, 'nonce_used');
    } finally {
      for (const target of [first, second]) {
        await target.stop();
        await target.store.close();
      }
    }
  });
});

const postgresSkip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const redisSkip = requirement('Redis at 127.0.0.1:6379', await probeRedis());

for (const withRedis of [false, true]) {
  const name = withRedis ? 'PostgreSQL + Redis' : 'PostgreSQL';
  describe(
    `Nonces: the timestamp window is not part of the key (${name})`,
    {
      skip: postgresSkip || (withRedis && redisSkip),
    },
    () => {
      const schema = runName('schema');
      const prefix = runName('prefix');
      const redisClients: Redis[] = [];
      const open = async () => {
        const redis = withRedis ? await connectRedis(redisUrl) : undefined;
        if (redis !== undefined) redisClients.push(redis);
        return createPostgresStore({
          connectionString: postgresUrl,
          schema,
          ...(redis === undefined ? {} : { redis, redisPrefix: prefix }),
        });
      };
      after(async () => {
        if (redisClients[0] !== undefined) await deleteKeys(redisClients[0], prefix);
        for (const redis of redisClients) redis.disconnect();
        await dropSchema(schema);
      });

      it('refuses on an instance with a 600-second window a request another with 300 accepted, and after a restart', async () => {
        const first = await instance(await open(), 300);
        const second = await instance(await open(), 600);
        const client = await createProvider({ store: first.store }).clients.register({
          name: 'Two windows',
        });
        const request = signedFor(client);
        try {
          assertOk(await sendTo(first, request));
          assertProblem(await sendTo(second, request), 401, 'nonce_used');
          const other = signedFor(client);
          assertOk(await sendTo(second, other));
          assertProblem(await sendTo(first, other), 401, 'nonce_used');
        } finally {
          for (const target of [first, second]) {
            await target.stop();
            await target.store.close();
          }
        }
        const restarted = await instance(await open(), 600);
        try {
          assertProblem(await sendTo(restarted, request), 401, 'nonce_used');
        } finally {
          await restarted.stop();
          await restarted.store.close();
        }
      });
    },
  );
}
