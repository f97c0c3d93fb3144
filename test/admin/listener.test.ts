// The admin API on a listener of its own (adminHost/adminPort): served there, with its own
// /openapi.json, and no longer on the public listener; an open audit stream does not keep the
// server from closing.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { adminAppOf } from '../../src/http/admin/admin-app.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { call, startAdmin, type AdminWorld } from './support.ts';

describe('The admin API on a listener of its own', () => {
  let world: AdminWorld;
  let admin: AdminWorld;
  before(async () => {
    world = await startAdmin(createSqliteStore({ path: ':memory:' }), {
      adminListener: { host: '127.0.0.1', port: 0 },
    });
    const { port } = adminAppOf(world.app)!.server.address() as AddressInfo;
    admin = { ...world, url: `http://127.0.0.1:${port}` };
  });
  after(() => world?.close());

  it('serves /admin/ there and not on the public listener', async () => {
    const there = await call(admin, 'GET', '/admin/clients', { as: 'auditor' });
    assert.equal(there.status, 200, there.text);
    const publicly = await call(world, 'GET', '/admin/clients', { as: 'auditor' });
    assert.equal(publicly.status, 404);
    assert.equal((await call(admin, 'GET', '/admin/clients')).status, 401);
  });

  it('describes the admin API alone in its own /openapi.json', async () => {
    const own = await call(admin, 'GET', '/openapi.json');
    const paths = Object.keys(own.body.paths);
    assert.ok(paths.includes('/admin/clients/{key}'));
    assert.ok(paths.every((path) => path.startsWith('/admin/') || path === '/openapi.json'));
    const publicPaths = Object.keys((await call(world, 'GET', '/openapi.json')).body.paths);
    assert.equal(
      publicPaths.some((path) => path.startsWith('/admin/clients')),
      false,
    );
    assert.ok(publicPaths.includes('/oauth/request_token'));
  });

  it('closes with an audit stream open', async () => {
    const stream = await fetch(`${admin.url}/admin/audit/stream`, {
      headers: { authorization: `Bearer ${world.tokens.auditor}` },
    });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    await reader.read();
    const ended = (async () => {
      while (!(await reader.read()).done);
    })();
    await world.close();
    await ended;
  });
});

describe('The admin API in gateway mode', () => {
  it('leaves /admin/ to the upstream API without adminPort, and serves it on adminPort', async () => {
    const gateway = { upstream: 'http://127.0.0.1:9', rules: [] };
    const plain = await startAdmin(createSqliteStore({ path: ':memory:' }), { gateway });
    try {
      const answer = await call(plain, 'GET', '/admin/whoami', { as: 'auditor' });
      // The gateway's refusal of a request that is not OAuth-signed, not the admin API's.
      assert.equal(answer.status, 401);
      assert.match(answer.text, /oauth_problem=/);
    } finally {
      await plain.close();
    }
    const separate = await startAdmin(createSqliteStore({ path: ':memory:' }), {
      gateway,
      adminListener: { host: '127.0.0.1', port: 0 },
    });
    try {
      const { port } = adminAppOf(separate.app)!.server.address() as AddressInfo;
      const there = await call(
        { ...separate, url: `http://127.0.0.1:${port}` },
        'GET',
        '/admin/whoami',
        {
          as: 'auditor',
        },
      );
      assert.equal(there.status, 200);
    } finally {
      await separate.close();
    }
  });
});
