// The admin API attacked as the other surfaces are: a flood of wrong tokens from one address
// (429 with Retry-After, the right token refused too while it lasts, other addresses served),
// oversized, non-JSON, malformed and slow bodies, and a fast-check hunt for a 500 over any
// JSON body and query a caller holding a token may send. Every route names the action its
// role must allow.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { routesOf } from '../../src/http/openapi.ts';
import { ADMIN_AUTH_FAILURES_PER_MINUTE } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { call, freshAddress, startAdmin, type AdminWorld, type CallOptions } from './support.ts';

const PROBLEM = /^application\/problem\+json/;

describe('Admin API under attack', () => {
  let world: AdminWorld;
  let key: string;
  let hook: string;
  let owner: string;
  before(async () => {
    world = await startAdmin(createSqliteStore({ path: ':memory:' }));
    key = (await world.provider.clients.register({ name: 'Target' })).key;
    hook = (await world.provider.webhooks.add('https://siem.example/in', ['*'])).hook.id;
    owner = (await world.provider.owners.create('target', 'correct horse battery')).id;
  });
  after(() => world?.close());

  it('answers a flood of wrong tokens from one address with 429, and serves the others', async () => {
    const from = freshAddress();
    const wrong = (index: number) => ({
      authorization: `Bearer lka_0123456789abcdef_${'x'.repeat(40)}${String(index).padStart(3, '0')}`,
    });
    const answers = await Promise.all(
      Array.from({ length: ADMIN_AUTH_FAILURES_PER_MINUTE }, (_, index) =>
        call(world, 'GET', '/admin/clients', { as: wrong(index), from }),
      ),
    );
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([401]));
    const over = await call(world, 'GET', '/admin/clients', { as: wrong(999), from });
    assert.equal(over.status, 429);
    assert.match(over.headers.get('content-type') ?? '', PROBLEM);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    // Guessing cannot go on: the right token from there is refused too, for now.
    assert.equal((await call(world, 'GET', '/admin/clients', { as: 'auditor', from })).status, 429);
    assert.equal((await call(world, 'GET', '/admin/clients', { as: 'auditor' })).status, 200);
    // A flood of 200 at once: each answered 401 or 429, never anything else.
    const flood = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        call(world, 'GET', '/admin/clients', { as: wrong(index), from }),
      ),
    );
    assert.deepEqual(new Set(flood.map((a) => a.status)), new Set([429]));
    world.advance(61_000);
    assert.equal((await call(world, 'GET', '/admin/clients', { as: 'auditor', from })).status, 200);
  });

  it('refuses an oversized body with 413, unread when no token comes with it', async () => {
    const body = { name: 'x', description: 'y'.repeat(100_000) };
    const big = await call(world, 'POST', '/admin/clients', { as: 'operator', body });
    assert.equal(big.status, 413);
    assert.match(big.headers.get('content-type') ?? '', PROBLEM);
    assert.equal(big.body.status, 413);
    const anonymous = await call(world, 'POST', '/admin/clients', { body });
    assert.equal(anonymous.status, 401);
    assert.equal((await call(world, 'GET', '/admin/health', { as: 'auditor' })).status, 200);
  });

  it('refuses bodies that are not JSON, or not the JSON expected, as problems', async () => {
    const cases: Array<[string, Record<string, string>, number]> = [
      ['{"name":', { 'content-type': 'application/json' }, 400],
      ['name=x', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
      ['name', { 'content-type': 'text/plain' }, 400],
      ['[]', { 'content-type': 'application/json' }, 400],
      ['{"name": 7}', { 'content-type': 'application/json' }, 400],
    ];
    for (const [raw, headers, status] of cases) {
      const answer = await call(world, 'POST', '/admin/clients', { as: 'operator', raw, headers });
      assert.equal(answer.status, status, raw);
      assert.match(answer.headers.get('content-type') ?? '', PROBLEM, raw);
    }
  });

  it('refuses a token flood, oversized, non-JSON and slow bodies on the webhook, owner, token and rotation routes', async () => {
    const from = freshAddress();
    const wrong = (index: number) => ({ authorization: `Bearer lka_0123456789abcdef_${index}` });
    const flood = await Promise.all(
      Array.from({ length: ADMIN_AUTH_FAILURES_PER_MINUTE + 20 }, (_, index) =>
        call(world, 'POST', '/admin/webhooks', { as: wrong(index), from, body: {} }),
      ),
    );
    assert.deepEqual(new Set(flood.map((a) => a.status)), new Set([401, 429]));
    assert.equal(
      (await call(world, 'GET', '/admin/webhooks', { as: 'auditor', from })).status,
      429,
    );
    for (const path of [
      '/admin/webhooks',
      '/admin/owners',
      '/admin/tokens',
      `/admin/webhooks/${hook}`,
      `/admin/clients/${key}/rotate-secret`,
      `/admin/clients/${key}/end-overlaps`,
    ]) {
      const method = path.endsWith(hook) ? 'PATCH' : 'POST';
      const big = await call(world, method, path, {
        as: 'operator',
        body: { url: 'y'.repeat(100_000) },
        headers: { 'if-match': '*' },
      });
      assert.equal(big.status, 413, path);
      assert.match(big.headers.get('content-type') ?? '', PROBLEM);
      const form = await call(world, method, path, {
        as: 'operator',
        raw: 'url=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'if-match': '*' },
      });
      assert.equal(form.status, 415, path);
      const broken = await call(world, method, path, {
        as: 'operator',
        raw: '{"url":',
        headers: { 'content-type': 'application/json', 'if-match': '*' },
      });
      assert.equal(broken.status, 400, path);
    }
    // A replayed add is a second hook with a secret of its own, never the first one's.
    const body = { url: 'https://siem.example/again', events: ['*'] };
    const first = await call(world, 'POST', '/admin/webhooks', { as: 'operator', body });
    const again = await call(world, 'POST', '/admin/webhooks', { as: 'operator', body });
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.notEqual(again.body.id, first.body.id);
    assert.notEqual(again.body.secret, first.body.secret);
    const { port } = new URL(world.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /admin/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${world.tokens.operator}\r\nContent-Length: 1000\r\n\r\n{"url":`,
    );
    assert.equal((await call(world, 'GET', '/admin/webhooks', { as: 'auditor' })).status, 200);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    assert.equal((await call(world, 'GET', '/admin/keys', { as: 'auditor' })).status, 200);
  });

  it('keeps answering while a body is sent slowly and abandoned', async () => {
    const { port } = new URL(world.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /admin/clients HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${world.tokens.operator}\r\nContent-Length: 1000\r\n\r\n{"name":`,
    );
    assert.equal((await call(world, 'GET', '/admin/health', { as: 'auditor' })).status, 200);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    assert.equal((await call(world, 'GET', '/admin/health', { as: 'auditor' })).status, 200);
  });

  it('never answers 500 to any JSON body or query an operator sends', async () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    const clientFields = fc.record(
      {
        name: value,
        description: value,
        website: fc.oneof(value, fc.webUrl()),
        callbacks: fc.oneof(value, fc.array(fc.webUrl(), { maxLength: 3 })),
        signatureMethods: fc.oneof(value, fc.constant(['HMAC-SHA1']), fc.constant(['RSA-SHA1'])),
        publicKey: value,
        constrainedDevice: value,
        sessionExtension: value,
        verified: value,
        requestsPerMinute: value,
        failuresPerMinute: value,
        client: value,
        owner: value,
        url: fc.oneof(value, fc.webUrl()),
        events: fc.oneof(
          value,
          fc.array(fc.constantFrom('*', 'grant.created', 'x'), { maxLength: 3 }),
        ),
        disabled: value,
        username: value,
        password: value,
        scope: value,
        lifetime: value,
        token: value,
        secret: value,
        overlapSeconds: fc.oneof(value, fc.integer({ min: -10, max: 3_000_000 })),
      },
      { requiredKeys: [] },
    );
    const routes: Array<[string, string]> = [
      ['POST', '/admin/clients'],
      ['PATCH', `/admin/clients/${key}`],
      ['POST', '/admin/tokens/revoke'],
      ['POST', '/admin/grants/revoke'],
      ['POST', '/admin/webhooks'],
      ['PATCH', `/admin/webhooks/${hook}`],
      ['POST', '/admin/owners'],
      ['POST', `/admin/owners/${owner}/password`],
      ['POST', '/admin/tokens'],
      ['POST', `/admin/clients/${key}/rotate-secret`],
      ['POST', `/admin/clients/${key}/end-overlaps`],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(clientFields, fc.jsonValue()),
        async ([method, path], body) => {
          const answer = await call(world, method, path, {
            as: 'operator',
            body,
            headers: { 'if-match': '*' },
          });
          assert.ok(answer.status < 500, `${method} ${path} ${answer.status} ${answer.text}`);
          assert.equal(answer.headers.get('cache-control'), 'no-store', `${method} ${path}`);
          if (answer.status >= 400) {
            assert.match(answer.headers.get('content-type') ?? '', PROBLEM);
          }
        },
      ),
      { numRuns: 150 },
    );
    const queryPaths = [
      '/admin/clients',
      '/admin/owners',
      '/admin/tokens',
      '/admin/grants',
      '/admin/audit',
      '/admin/webhooks',
      `/admin/webhooks/${hook}/deliveries`,
      '/admin/webhook-deliveries',
      `/admin/clients/${key}/usage`,
      `/admin/clients/${key}/overlaps`,
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...queryPaths),
        fc.dictionary(
          fc.constantFrom(
            'cursor',
            'limit',
            'q',
            'disabled',
            'since',
            'client',
            'owner',
            'status',
            'source',
            'webhook',
            'days',
            'x',
          ),
          fc.string(),
        ),
        async (path, query) => {
          const answer = await call(world, 'GET', `${path}?${new URLSearchParams(query)}`, {
            as: 'auditor',
          });
          assert.ok(answer.status < 500, `${path} ${answer.status} ${answer.text}`);
          assert.equal(answer.headers.get('cache-control'), 'no-store', path);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('sends only the statuses /openapi.json declares for each admin operation', async () => {
    const document = (await call(world, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const undeclared: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/admin/') || path === '/admin/audit/stream') continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (!['get', 'post', 'patch', 'delete'].includes(method)) continue;
        for (const param of [key, hook, owner, 'x'.repeat(300), 'no-such']) {
          const url = path.replace(/\{\w+\}/g, encodeURIComponent(param));
          const probes: CallOptions[] = [
            {},
            { as: 'auditor' },
            { as: 'operator', body: {} },
            { as: 'operator', body: { unknown: 1 }, headers: { 'if-match': '"stale"' } },
            {
              as: 'operator',
              raw: 'x=1',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            },
          ];
          for (const probe of probes) {
            // fetch sends no body with a GET.
            if (method === 'get' && (probe.body !== undefined || probe.raw !== undefined)) continue;
            const answer = await call(world, method.toUpperCase(), url, probe);
            if (!(String(answer.status) in operation.responses)) {
              undeclared.push(`${method.toUpperCase()} ${path} ${answer.status}`);
            }
          }
        }
      }
    }
    assert.deepEqual([...new Set(undeclared)], []);
  });

  it('refuses audit streams past the cap with 503, and takes one again once one closes', async () => {
    const open = async () => {
      const controller = new AbortController();
      const response = await fetch(`${world.url}/admin/audit/stream`, {
        headers: { authorization: `Bearer ${world.tokens.auditor}` },
        signal: controller.signal,
      });
      return { response, controller };
    };
    const held = await Promise.all(Array.from({ length: 100 }, open));
    assert.deepEqual(new Set(held.map((s) => s.response.status)), new Set([200]));
    const refused = await call(world, 'GET', '/admin/audit/stream', { as: 'auditor' });
    assert.equal(refused.status, 503);
    assert.match(refused.headers.get('content-type') ?? '', PROBLEM);
    const closed = held.pop()!;
    closed.controller.abort();
    let again = await open();
    // The server learns of the abort when its socket closes: ask until it has.
    while (again.response.status === 503) {
      await again.response.body?.cancel();
      await new Promise((resolve) => setImmediate(resolve));
      again = await open();
    }
    assert.equal(again.response.status, 200);
    for (const stream of [...held, again]) stream.controller.abort();
  });

  it('names, for every admin route, the action its role must allow', () => {
    const admin = routesOf(world.app).filter(
      (route) => String(route.url).startsWith('/admin/') && route.method !== 'HEAD',
    );
    assert.ok(admin.length >= 19, `admin routes: ${admin.length}`);
    for (const route of admin) {
      const action = (route.config as { action?: string } | undefined)?.action;
      assert.equal(typeof action, 'string', `${String(route.method)} ${route.url}`);
    }
  });
});
