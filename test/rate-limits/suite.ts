// Per-client rate limits over HTTP, on one store: protected-resource requests and failed
// verifications counted per client, 429 with Retry-After and oauth_problem once over. With
// Redis, two instances share the counts. A client key no client has is counted per address
// alone: a flood of made-up keys starts no counter per key (in memory or in Redis) and is
// refused once over. sqlite.test.ts and postgres-redis.test.ts run it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import type { Client, Store, TokenCredential } from '../../src/store/index.ts';

interface Instance {
  readonly app: FastifyInstance;
  readonly provider: Provider;
  readonly store: Store;
  readonly base: string;
}

async function startInstance(store: Store): Promise<Instance> {
  const provider = createProvider({ store });
  const app = await buildApp({ provider, maintenance: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    provider,
    store,
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
  };
}

export interface RateLimitSuiteOptions {
  readonly shared: boolean;
  /** How many rate counters `store` holds that a flood of `keys` may have started. */
  readonly countersFor: (store: Store, keys: readonly string[]) => Promise<number>;
}

export function describeRateLimits(
  name: string,
  openStore: () => Promise<Store>,
  options: RateLimitSuiteOptions,
): void {
  describe(`Per-client rate limits (${name})`, () => {
    let first: Instance;
    let second: Instance;
    before(async () => {
      first = await startInstance(await openStore());
      // With Redis a second instance on its own store connection; else the same server again.
      second = options.shared ? await startInstance(await openStore()) : first;
    });
    after(async () => {
      for (const instance of new Set([first, second])) {
        await instance.app.close();
        await instance.store.close();
      }
    });

    async function clientWithToken(limits: {
      requestsPerMinute?: number;
      failuresPerMinute?: number;
    }): Promise<{ client: Client; token: TokenCredential }> {
      const registered = await first.provider.clients.register({ name: 'Rate-limited app' });
      const client = await first.provider.clients.update(registered.key, limits);
      const owner = await first.provider.owners.create(
        `owner-${client.key.slice(0, 8)}`,
        'correct horse battery',
      );
      const token = await first.provider.tokens.issue({
        clientKey: client.key,
        ownerId: owner.id,
        scope: 'read',
      });
      return { client, token };
    }

    function get(
      instance: Instance,
      client: Client,
      token: TokenCredential,
      secret = client.secret,
    ) {
      const signed = signRequest({
        method: 'GET',
        url: `${instance.base}/api/me`,
        client: { key: client.key, secret },
        token: { token: token.token, secret: token.secret },
      });
      return fetch(signed.url, { headers: signed.headers });
    }

    async function assertLimited(response: Response) {
      assert.equal(response.status, 429);
      const retryAfter = Number(response.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
      const body = new URLSearchParams(await response.text());
      assert.equal(body.get('oauth_problem'), 'rate_limit_exceeded');
    }

    it('answers 429 with Retry-After and oauth_problem=rate_limit_exceeded past a client’s request limit', async () => {
      const { client, token } = await clientWithToken({ requestsPerMinute: 3 });
      assert.equal((await get(first, client, token)).status, 200);
      assert.equal((await get(second, client, token)).status, 200);
      assert.equal((await get(first, client, token)).status, 200);
      await assertLimited(await get(second, client, token));
    });

    it('tells the client its standing: RateLimit-Limit, -Remaining counting down, -Reset; the same with the 429', async () => {
      const { client, token } = await clientWithToken({ requestsPerMinute: 3 });
      const standing = (response: Response) => ({
        status: response.status,
        limit: response.headers.get('ratelimit-limit'),
        remaining: response.headers.get('ratelimit-remaining'),
      });
      const answers = [
        await get(first, client, token),
        await get(first, client, token),
        await get(first, client, token),
        await get(first, client, token),
      ];
      assert.deepEqual(answers.map(standing), [
        { status: 200, limit: '3', remaining: '2' },
        { status: 200, limit: '3', remaining: '1' },
        { status: 200, limit: '3', remaining: '0' },
        { status: 429, limit: '3', remaining: '0' },
      ]);
      for (const answer of answers) {
        const reset = Number(answer.headers.get('ratelimit-reset'));
        assert.ok(
          Number.isInteger(reset) && reset >= 1 && reset <= 60,
          `RateLimit-Reset: ${reset}`,
        );
      }
      const refused = answers[3]!;
      assert.equal(refused.headers.get('ratelimit-reset'), refused.headers.get('retry-after'));
      await assertLimited(refused);
    });

    it('counts the other instance’s requests in RateLimit-Remaining once reported', async () => {
      const { client, token } = await clientWithToken({ requestsPerMinute: 4 });
      const remaining = async (instance: Instance) =>
        (await get(instance, client, token)).headers.get('ratelimit-remaining');
      // Near its limit every request is reported, so each instance sees the other's.
      assert.equal(await remaining(first), '3');
      assert.equal(await remaining(second), '2');
      assert.equal(await remaining(first), '1');
      assert.equal(await remaining(second), '0');
    });

    it('limits each client on its own: another client is not slowed', async () => {
      const limited = await clientWithToken({ requestsPerMinute: 1 });
      const other = await clientWithToken({});
      assert.equal((await get(first, limited.client, limited.token)).status, 200);
      await assertLimited(await get(first, limited.client, limited.token));
      assert.equal((await get(first, other.client, other.token)).status, 200);
    });

    it('refuses a source past its failure limit, even with a good signature, until the minute ends', async () => {
      const { client, token } = await clientWithToken({ failuresPerMinute: 2 });
      assert.equal((await get(first, client, token, 'wrong secret')).status, 401);
      assert.equal((await get(second, client, token, 'wrong secret')).status, 401);
      await assertLimited(await get(second, client, token, 'wrong secret'));
      await assertLimited(await get(second, client, token));
    });

    it('counts failures per address, so no outsider can lock a client out', async () => {
      const { client, token } = await clientWithToken({ failuresPerMinute: 1 });
      const inject = (remoteAddress: string, secret: string) => {
        const signed = signRequest({
          method: 'GET',
          url: 'http://127.0.0.1/api/me',
          client: { key: client.key, secret },
          token: { token: token.token, secret: token.secret },
        });
        return first.app.inject({
          method: 'GET',
          url: '/api/me',
          remoteAddress,
          headers: { ...signed.headers, host: '127.0.0.1' },
        });
      };
      assert.equal((await inject('192.0.2.7', 'wrong')).statusCode, 401);
      assert.equal((await inject('192.0.2.7', 'wrong')).statusCode, 429);
      assert.equal((await inject('192.0.2.7', client.secret)).statusCode, 429);
      assert.equal((await inject('198.51.100.9', client.secret)).statusCode, 200);
    });

    it('counts failures with made-up client keys per address: no counter per key, refused once over', async () => {
      // Instances whose policy allows 5 failures a minute, on each store (with Redis, two
      // instances sharing the count; else one), sent the flood in turn.
      const apps = await Promise.all(
        [...new Set([first.store, second.store])].map((store) =>
          buildApp({
            provider: createProvider({ store, policy: { failuresPerMinute: 5 } }),
            maintenance: false,
          }),
        ),
      );
      let turn = 0;
      try {
        const keys = Array.from({ length: 20 }, () => `made-up-${randomBytes(8).toString('hex')}`);
        const inject = (remoteAddress: string, key: string) => {
          const signed = signRequest({
            method: 'GET',
            url: 'http://127.0.0.1/api/me',
            client: { key, secret: 'anything' },
          });
          return apps[turn++ % apps.length]!.inject({
            method: 'GET',
            url: '/api/me',
            remoteAddress,
            headers: { ...signed.headers, host: '127.0.0.1' },
          });
        };
        const counted = await options.countersFor(first.store, keys);
        const statuses: number[] = [];
        for (const key of keys) statuses.push((await inject('203.0.113.45', key)).statusCode);
        // At most the address's own counter is new.
        const started = (await options.countersFor(first.store, keys)) - counted;
        assert.ok(started <= 1, `${started} counters started by ${keys.length} made-up keys`);
        assert.deepEqual(statuses, [...Array<number>(5).fill(401), ...Array<number>(15).fill(429)]);
        // Another address is not refused for it.
        assert.equal((await inject('198.51.100.45', keys[0]!)).statusCode, 401);
      } finally {
        for (const app of apps) await app.close();
      }
    });
  });
}
