// The admin API's client objects carry `scopes`, the client's scope ceiling (docs/admin.md,
// docs/decisions.md "Scope ceilings"): set on create and change, each one of the server's
// scopes, shown on every read and in the OpenAPI schema; lowering it narrows tokens at once.
// Run on the embedded store and on PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { createPostgresStore, createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import { call, startAdmin, type AdminWorld } from './support.ts';

const PROBLEM = /^application\/problem\+json/;

function describeScopes(label: string, makeStore: () => Promise<Store>, skip?: string | false) {
  describe(`Admin API: client scope ceilings (${label})`, { skip }, () => {
    let world: AdminWorld;
    before(async () => {
      world = await startAdmin(await makeStore());
    });
    after(() => world?.close());

    it('registers a client with a ceiling and shows it on every read', async () => {
      const made = await call(world, 'POST', '/admin/clients', {
        as: 'operator',
        body: { name: 'Reader', scopes: ['read'] },
      });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.body.scopes, ['read']);
      const key = made.body.key as string;
      const read = await call(world, 'GET', `/admin/clients/${key}`, { as: 'auditor' });
      assert.deepEqual(read.body.scopes, ['read']);
      const listed = await call(world, 'GET', '/admin/clients?q=Reader', { as: 'auditor' });
      const item = (listed.body.items as Array<{ key: string; scopes: string[] }>).find(
        (c) => c.key === key,
      );
      assert.deepEqual(item?.scopes, ['read']);
      const free = await call(world, 'POST', '/admin/clients', {
        as: 'operator',
        body: { name: 'Free' },
      });
      assert.deepEqual(free.body.scopes, [], 'no ceiling unless one is given');
    });

    it('refuses a scope the server does not know, naming it, with a 400 problem', async () => {
      const made = await call(world, 'POST', '/admin/clients', {
        as: 'operator',
        body: { name: 'Greedy', scopes: ['read', 'everything'] },
      });
      assert.equal(made.status, 400);
      assert.match(made.headers.get('content-type') ?? '', PROBLEM);
      assert.match(made.text, /Unknown scope: everything/);
      const tooMany = await call(world, 'POST', '/admin/clients', {
        as: 'operator',
        body: { name: 'Greedy', scopes: Array.from({ length: 51 }, () => 'read') },
      });
      assert.equal(tooMany.status, 400);
      const notAList = await call(world, 'POST', '/admin/clients', {
        as: 'operator',
        body: { name: 'Greedy', scopes: 'read' },
      });
      assert.equal(notAList.status, 400);
    });

    it("lowers a ceiling with PATCH: a token's scope is narrowed from the next request", async () => {
      const client = await world.provider.clients.register({ name: 'Lowered' });
      const owner = await world.provider.owners.create('lowered-owner', 'correct horse battery');
      const token = await world.provider.tokens.issue({
        clientKey: client.key,
        ownerId: owner.id,
        scope: 'read write',
      });
      const me = async () => {
        const signed = signRequest({
          method: 'GET',
          url: `${world.url}/api/me`,
          client: { key: client.key, secret: client.secret },
          token: { token: token.token, secret: token.secret },
          timestamp: Math.floor(world.now() / 1000),
        });
        const answer = await fetch(signed.url, { headers: signed.headers });
        return ((await answer.json()) as { scope: string }).scope;
      };
      assert.equal(await me(), 'read write');
      const read = await call(world, 'GET', `/admin/clients/${client.key}`, { as: 'auditor' });
      const changed = await call(world, 'PATCH', `/admin/clients/${client.key}`, {
        as: 'operator',
        body: { scopes: ['write'] },
        headers: { 'if-match': read.headers.get('etag')! },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.body.scopes, ['write']);
      assert.equal(await me(), 'write');
      const cleared = await call(world, 'PATCH', `/admin/clients/${client.key}`, {
        as: 'operator',
        body: { scopes: [] },
        headers: { 'if-match': changed.headers.get('etag')! },
      });
      assert.deepEqual(cleared.body.scopes, []);
      assert.equal(await me(), 'read write');
    });

    it('says so in the OpenAPI description: create, change and the client object', async () => {
      const answer = await fetch(`${world.url}/openapi.json`);
      const spec = (await answer.json()) as {
        paths: Record<string, Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
      };
      const bodyOf = (path: string, method: string) =>
        spec.paths[path]![method].requestBody.content['application/json'].schema;
      assert.equal(bodyOf('/admin/clients', 'post').properties.scopes.type, 'array');
      assert.equal(bodyOf('/admin/clients/{key}', 'patch').properties.scopes.type, 'array');
      const read =
        spec.paths['/admin/clients/{key}']!.get.responses['200'].content['application/json'].schema;
      assert.equal(read.properties.scopes.type, 'array');
    });
  });
}

const directory = mkdtempSync(join(tmpdir(), 'latchkey-admin-scopes-'));
after(() => rmSync(directory, { recursive: true, force: true }));
describeScopes('SQLite', async () => createSqliteStore({ path: join(directory, 'latchkey.db') }));

const skip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const schema = runName('schema');
describeScopes(
  'PostgreSQL',
  async () => createPostgresStore({ connectionString: postgresUrl, schema }),
  skip,
);
after(async () => {
  if (!skip) await dropSchema(schema);
});
