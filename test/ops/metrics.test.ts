// Operations: GET /metrics in the Prometheus format, readable only where configured
// (docs/decisions.md "Who may read /metrics"), with the metrics docs/events.md lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppOptions } from '../../src/http/options.ts';
import { connect } from '../web/support.ts';
import type { WebWorld } from '../web/support.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { servicesSkip, until, useDeployment } from './support.ts';

/** How long the sampler may take before the test fails as hung (it measures nothing). */
const HANG_MS = 10_000;
import { sample, startWorld } from './world.ts';

async function scrape(world: WebWorld): Promise<string> {
  const response = await world.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(response.statusCode, 200);
  return response.body;
}

async function withWorld(
  app: Omit<AppOptions, 'provider'>,
  body: (world: WebWorld) => Promise<void>,
) {
  const world = await startWorld({ app });
  try {
    await body(world);
  } finally {
    await world.close();
  }
}

describe('/metrics: who may read it', () => {
  it('answers a loopback client in the Prometheus text format', () =>
    withWorld({}, async (world) => {
      const response = await world.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    }));

  it('answers 404 to a client off loopback', () =>
    withWorld({}, async (world) => {
      const response = await world.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
      });
      assert.equal(response.statusCode, 404);
    }));

  it('answers 404 to a loopback request that came through a proxy (X-Forwarded-For)', () =>
    withWorld({}, async (world) => {
      const response = await world.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      assert.equal(response.statusCode, 404);
    }));

  it('answers 404 even on loopback when a trusted proxy is declared', () =>
    withWorld({ trustProxy: true }, async (world) => {
      const response = await world.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(response.statusCode, 404);
    }));

  it('with a token, answers the bearer of that token from anywhere', () =>
    withWorld({ metrics: { token: 'scraper-token-0123456789' } }, async (world) => {
      const response = await world.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
        headers: { authorization: 'Bearer scraper-token-0123456789' },
      });
      assert.equal(response.statusCode, 200);
    }));

  it('with a token, answers 404 to a loopback client without it', () =>
    withWorld({ metrics: { token: 'scraper-token-0123456789' } }, async (world) => {
      const response = await world.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer another-token-0123456789' },
      });
      assert.equal(response.statusCode, 404);
    }));

  it('when public, answers anyone', () =>
    withWorld({ metrics: { public: true } }, async (world) => {
      const response = await world.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
      });
      assert.equal(response.statusCode, 200);
    }));

  it('keeps one registry per app, so a process builds several apps', async () => {
    const worlds = [await startWorld(), await startWorld()];
    try {
      await worlds[0]!.app.inject({ method: 'GET', url: '/healthz' });
      const [first, second] = await Promise.all(worlds.map(scrape));
      const count = { endpoint: '/healthz', outcome: 'success' };
      assert.deepEqual(
        [
          sample(first!, 'latchkey_http_requests_total', count),
          sample(second!, 'latchkey_http_requests_total', count),
        ],
        [1, undefined],
      );
    } finally {
      for (const world of worlds) await world.close();
    }
  });
});

describe('/metrics: what it counts over a full flow', () => {
  let world: WebWorld;
  let text: string;
  before(async () => {
    const store = createSqliteStore({ path: ':memory:' });
    world = await startWorld({ store, app: { metrics: { nonceSampleMs: 10 } } });
    const owner = await world.owner();
    const client = await world.client();
    const browser = world.browser();
    await browser.signIn(owner.username!);
    const { api } = await connect(world, browser, client);
    await api('http://127.0.0.1/api/me');
    await world.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: {
        authorization: `OAuth oauth_consumer_key="${client.key}", oauth_signature_method="HMAC-SHA1", oauth_signature="forged", oauth_timestamp="${Math.floor(Date.now() / 1000)}", oauth_nonce="n1", oauth_version="1.0"`,
      },
    });
    await world.provider.tokens.revokeGrant(owner.id, client.key);
    // Scraped once the gauge has sampled the store as it now is (the sampler runs every 10 ms;
    // it never reads the store on a scrape).
    const live = await store.nonces.size();
    text = await until(HANG_MS, async () => {
      const scraped = await scrape(world);
      return sample(scraped, 'latchkey_nonce_store_entries') === live ? scraped : undefined;
    });
  });
  after(() => world.close());

  it('counts requests by endpoint and outcome', () => {
    assert.deepEqual(
      [
        sample(text, 'latchkey_http_requests_total', { endpoint: '/api/me', outcome: 'success' }),
        sample(text, 'latchkey_http_requests_total', { endpoint: '/api/me', outcome: 'rejected' }),
      ],
      [1, 1],
    );
  });

  it('counts verification failures by oauth_problem', () => {
    assert.equal(
      sample(text, 'latchkey_verification_failures_total', { problem: 'signature_invalid' }),
      1,
    );
  });

  it('keeps a latency histogram per endpoint', () => {
    assert.equal(
      sample(text, 'latchkey_http_request_duration_seconds_count', { endpoint: '/api/me' }),
      2,
    );
  });

  it('counts temporary and token credentials issued', () => {
    assert.deepEqual(
      [
        sample(text, 'latchkey_credentials_issued_total', { kind: 'temporary' }),
        sample(text, 'latchkey_credentials_issued_total', { kind: 'token' }),
      ],
      [1, 1],
    );
  });

  it('counts tokens revoked', () => {
    assert.equal(sample(text, 'latchkey_tokens_revoked_total'), 1);
  });

  it('reports the nonce store size, as sampled', () => {
    // The flow's requests each left a nonce: temporary, token, /api/me (the forgery left none).
    assert.equal(sample(text, 'latchkey_nonce_store_entries'), 3);
  });
});

describe('/metrics: upkeep', () => {
  it('counts a failed round of periodic upkeep', () =>
    withWorld({}, async (world) => {
      world.provider.events.emit('error.maintenance', new Error('the store did not answer'));
      assert.equal(sample(await scrape(world), 'latchkey_maintenance_failures_total'), 1);
    }));
});

describe('/metrics: the cache hit ratio', { skip: await servicesSkip() }, () => {
  const deployment = useDeployment();

  it('reports the share of client and token lookups the cache answered', async () => {
    const instance = await deployment.instance();
    const client = await instance.provider.clients.register({ name: 'Ratio probe' });
    for (let i = 0; i < 4; i++) await instance.store.clients.find(client.key);
    const response = await instance.app.inject({ method: 'GET', url: '/metrics' });
    assert.deepEqual(
      [
        sample(response.body, 'latchkey_cache_hit_ratio', { cache: 'clients' }),
        sample(response.body, 'latchkey_cache_lookups_total', { cache: 'clients', result: 'hit' }),
      ],
      [0.75, 3],
    );
  });
});
