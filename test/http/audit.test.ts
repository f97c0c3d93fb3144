// The audit trail over HTTP, on SQLite and on PostgreSQL: a failed and a successful sign-in,
// a grant, a revocation and a client's secret rotation are each recorded once with who did
// it, what, when and from which address, and no secret is ever in the trail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Provider } from '../../src/provider/index.ts';
import { createPostgresStore, createSqliteStore, type Store } from '../../src/store/index.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import { connect, PASSWORD, startWeb, type WebWorld } from '../web/support.ts';

const postgresSkip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const ADDRESS = '203.0.113.7';

/** Resolves once the trail has stored an event of this name (the `audit` announcement). */
function recorded(provider: Provider, name: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (entry: { event: string }) => {
      if (entry.event !== name) return;
      provider.events.off('audit', listener);
      resolve();
    };
    provider.events.on('audit', listener);
  });
}

function describeAuditTrail(label: string, makeStore: () => Promise<Store>, skip?: string | false) {
  describe(`Audit trail over HTTP (${label})`, { skip }, () => {
    let world: WebWorld;
    let store: Store;
    before(async () => {
      store = await makeStore();
      world = await startWeb({ store });
      await world.owner('alice');
    });
    after(() => world?.close());

    it('records sign-ins, a grant, a revocation and a secret rotation with the address, and no secret', async () => {
      const { provider } = world;
      const browser = world.browser(ADDRESS);
      const refused = recorded(provider, 'owner.sign-in-refused');
      await browser.signIn('alice', 'not the password');
      await refused;
      const signedIn = recorded(provider, 'owner.signed-in');
      await browser.signIn('alice');
      await signedIn;
      const client = await world.client({ name: 'Audited app' });
      const granted = recorded(provider, 'authorization.granted');
      const { token } = await connect(world, browser, client);
      await granted;
      const revoked = recorded(provider, 'grant.revoked');
      const page = await browser.get('/account/apps');
      await browser.post('/account/apps/revoke', { client_key: client.key }, page);
      await revoked;
      const rotated = recorded(provider, 'client.secret-rotated');
      const fresh = await provider.clients.rotateSecret(client.key);
      await rotated;

      const alice = await provider.owners.get('alice');
      const events = await provider.audit.list({});
      const byName = (name: string) => events.filter((e) => e.event === name);
      assert.deepEqual(
        byName('owner.sign-in-refused').map((e) => [
          e.actor,
          e.ownerId,
          e.address,
          JSON.parse(e.detail),
        ]),
        [['owner', alice.id, ADDRESS, { kind: 'local', reason: 'password' }]],
      );
      assert.deepEqual(
        byName('owner.signed-in').map((e) => [e.actor, e.ownerId, e.address]),
        [['owner', alice.id, ADDRESS]],
      );
      assert.deepEqual(
        byName('authorization.granted').map((e) => [e.actor, e.ownerId, e.clientKey, e.address]),
        [['owner', alice.id, client.key, ADDRESS]],
      );
      assert.deepEqual(
        byName('grant.revoked').map((e) => [e.actor, e.ownerId, e.clientKey, e.address]),
        [['owner', alice.id, client.key, ADDRESS]],
      );
      // Outside a request (here, as the CLI does): the operator, no address.
      assert.deepEqual(
        byName('client.secret-rotated').map((e) => [e.actor, e.clientKey, e.address]),
        [['operator', client.key, null]],
      );
      assert.deepEqual(
        byName('client.created').map((e) => e.clientKey),
        [client.key],
      );
      const trail = JSON.stringify(events);
      for (const secret of [PASSWORD, client.secret, fresh.secret, token.secret]) {
        assert.equal(trail.includes(secret), false, 'a secret is in the audit trail');
      }
      // Filters: by client and by owner, newest first.
      const forClient = await provider.audit.list({ clientKey: client.key });
      assert.equal(forClient[0]?.event, 'client.secret-rotated');
      assert.ok(forClient.every((e) => e.clientKey === client.key));
      const forOwner = await provider.audit.list({ ownerId: alice.id });
      assert.ok(forOwner.length >= 3 && forOwner.every((e) => e.ownerId === alice.id));
      assert.deepEqual(await provider.audit.list({ since: Date.now() + 60_000 }), []);
    });

    it('records a refused sign-in by the account it named, never by what was typed as the username', async () => {
      const { provider } = world;
      const bob = await world.owner('bob');
      // A person who typed their password into the username field.
      const typed = 'Hunter2.Typed-In.The.Wrong.Box';
      const announced: unknown[] = [];
      const announce = (entry: unknown) => announced.push(entry);
      provider.events.on('audit', announce);
      try {
        const browser = world.browser('198.51.100.23');
        let refused = recorded(provider, 'owner.sign-in-refused');
        await browser.signIn(typed, 'bob’s password');
        await refused;
        refused = recorded(provider, 'owner.sign-in-refused');
        await browser.signIn('bob', typed);
        await refused;
      } finally {
        provider.events.off('audit', announce);
      }
      const rows = (await provider.audit.list({})).filter(
        (e) => e.event === 'owner.sign-in-refused' && e.address === '198.51.100.23',
      );
      assert.deepEqual(rows.map((e) => [e.ownerId, JSON.parse(e.detail)]).reverse(), [
        [null, { kind: 'local', reason: 'unknown-username' }],
        [bob.id, { kind: 'local', reason: 'password' }],
      ]);
      // Neither the stored rows nor the announcements (each one a log line) hold the text.
      assert.equal(JSON.stringify(rows).includes(typed), false);
      assert.equal(JSON.stringify(announced).includes(typed), false);
      assert.equal(JSON.stringify(announced).includes('Hunter2'), false);
    });

    it('forgets events past the retention (the maintenance purge)', async () => {
      await store.audit.append({
        at: 1000,
        event: 'client.deleted',
        actor: 'operator',
        ownerId: null,
        clientKey: 'old-client',
        address: null,
        detail: '{}',
      });
      assert.equal((await world.provider.audit.list({ clientKey: 'old-client' })).length, 1);
      await world.provider.maintain();
      assert.deepEqual(await world.provider.audit.list({ clientKey: 'old-client' }), []);
    });
  });
}

describeAuditTrail('SQLite', async () => createSqliteStore({ path: ':memory:' }));

const schema = runName('schema');
describeAuditTrail(
  'PostgreSQL',
  () => createPostgresStore({ connectionString: postgresUrl, schema }),
  postgresSkip,
);
after(async () => {
  if (!postgresSkip) await dropSchema(schema);
});
