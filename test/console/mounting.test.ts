// Where the console is served: beside the admin API on the public listener, or on the admin
// listener alone when adminPort is set; every route with a schema, described in /openapi.json.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { adminAppOf } from '../../src/http/admin/admin-app.ts';
import { routesOf } from '../../src/http/openapi.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { consolePlugin } from '../../src/web/console/index.ts';
import { startAdmin, type AdminWorld } from '../admin/support.ts';
import { CONSOLE, Visitor, startConsole } from './support.ts';

describe('The console on the public listener', () => {
  let world: AdminWorld;
  before(async () => {
    world = await startConsole(createSqliteStore({ path: ':memory:' }));
  });
  after(() => world?.close());

  it('gives every console route a schema and describes it in /openapi.json', async () => {
    const console = routesOf(world.app).filter((route) => route.url.startsWith(CONSOLE));
    assert.ok(console.length > 10);
    const unschemed = console.filter((route) => route.schema === undefined);
    assert.deepEqual(
      unschemed.map((route) => route.url),
      [],
    );
    const document = (await (await fetch(`${world.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    assert.match(document.paths[`${CONSOLE}/clients/{key}`]?.get?.summary ?? '', /^Console: /);
  });

  it('serves its stylesheet under its own path', async () => {
    const css = await fetch(`${world.url}${CONSOLE}/static/latchkey.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /text\/css/);
  });
});

describe('The console on a listener of its own', () => {
  let world: AdminWorld;
  let admin: AdminWorld;
  before(async () => {
    world = await startAdmin(createSqliteStore({ path: ':memory:' }), {
      console: consolePlugin,
      adminListener: { host: '127.0.0.1', port: 0 },
    });
    const { port } = adminAppOf(world.app)!.server.address() as AddressInfo;
    admin = { ...world, url: `http://127.0.0.1:${port}` };
  });
  after(() => world?.close());

  it('is served on the admin listener and not on the public one', async () => {
    const there = new Visitor(admin);
    assert.equal((await there.request('GET', `${CONSOLE}/signin`)).status, 200);
    assert.equal((await there.signIn(world.tokens.auditor)).status, 303);
    assert.equal((await there.request('GET', `${CONSOLE}/clients`)).status, 200);
    const publicly = new Visitor(world);
    assert.equal((await publicly.request('GET', `${CONSOLE}/signin`)).status, 404);
  });
});
