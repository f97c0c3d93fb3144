// The admin API's webhook, sealing key and provisioning routes over HTTP, run on each store
// (sqlite.test.ts, postgres.test.ts): the three roles (auditor and support read, only an
// operator changes; no token: 401), paging by cursor, ETag and If-Match, and the audit row
// each change leaves, naming the admin token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../src/store/index.ts';
import { call, freshAddress, recorded, startAdmin, type AdminWorld } from './support.ts';

const PROBLEM = /^application\/problem\+json/;

export function describeAdminOperatorRoutes(
  label: string,
  makeStore: () => Promise<Store>,
  skip?: string | false,
) {
  describe(`Admin API webhooks, keys and provisioning (${label})`, { skip }, () => {
    let world: AdminWorld;
    before(async () => {
      world = await startAdmin(await makeStore(), {}, '-ops');
    });
    after(() => world?.close());

    /** Makes a change and checks the one audit row it leaves: the admin, its address. */
    async function audited<T>(event: string, admin: string, change: (from: string) => Promise<T>) {
      const from = freshAddress();
      const stored = recorded(world.provider, event);
      const result = await change(from);
      await stored;
      const answer = await call(world, 'GET', '/admin/audit?limit=1000', { as: 'auditor' });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const found = (answer.body.items as Array<Record<string, any>>).filter(
        (e) => e.event === event && e.address === from,
      );
      assert.equal(found.length, 1, `one ${event} row from ${from}`);
      assert.equal(found[0]!.actor, 'admin');
      assert.equal(found[0]!.detail.admin, `${admin}-ops`);
      return { result, row: found[0]! };
    }

    const addHook = (events: string[], from?: string) =>
      call(world, 'POST', '/admin/webhooks', {
        as: 'operator',
        body: { url: 'https://siem.example/latchkey', events },
        from,
      });

    it('refuses every new route without a token (401) and changes to auditors and support (403)', async () => {
      const made = await addHook(['client.created']);
      assert.equal(made.status, 201, made.text);
      const id = made.body.id as string;
      const changes: Array<[string, string, unknown]> = [
        ['POST', '/admin/webhooks', { url: 'https://a.example/', events: ['*'] }],
        ['PATCH', `/admin/webhooks/${id}`, { events: ['*'] }],
        ['POST', `/admin/webhooks/${id}/disable`, undefined],
        ['POST', `/admin/webhooks/${id}/enable`, undefined],
        ['DELETE', `/admin/webhooks/${id}`, undefined],
        ['POST', '/admin/keys/rotate', undefined],
        ['POST', '/admin/owners', { username: 'mallory', password: 'correct horse battery' }],
        ['POST', '/admin/owners/x/password', { password: 'correct horse battery' }],
        ['POST', '/admin/tokens', { client: 'c', owner: 'o' }],
      ];
      const reads = [
        '/admin/webhooks',
        `/admin/webhooks/${id}`,
        `/admin/webhooks/${id}/deliveries`,
        '/admin/webhook-deliveries',
        '/admin/keys',
      ];
      for (const [method, path, body] of changes) {
        const anonymous = await call(world, method, path, { body });
        assert.equal(anonymous.status, 401, `${method} ${path}`);
        assert.match(anonymous.headers.get('content-type') ?? '', PROBLEM);
        for (const role of ['auditor', 'support'] as const) {
          const refused = await call(world, method, path, {
            as: role,
            body,
            headers: { 'if-match': '*' },
          });
          assert.equal(refused.status, 403, `${role} ${method} ${path}`);
        }
      }
      for (const path of reads) {
        assert.equal((await call(world, 'GET', path)).status, 401, path);
        for (const role of ['auditor', 'support', 'operator'] as const) {
          const read = await call(world, 'GET', path, { as: role });
          assert.equal(read.status, 200, `${role} ${path} ${read.text}`);
        }
      }
      assert.equal(
        (await call(world, 'GET', `/admin/webhooks/${id}`, { as: 'auditor' })).body.id,
        id,
      );
    });

    it('adds (secret once), reads, changes (If-Match), disables, enables and removes a webhook, each change audited', async () => {
      const { result: made } = await audited('webhook.created', 'operator', (from) =>
        addHook(['client.created', 'client.deleted'], from),
      );
      assert.equal(made.status, 201, made.text);
      const id = made.body.id as string;
      assert.match(made.body.secret, /^whsec_/);
      assert.equal(made.headers.get('location'), `/admin/webhooks/${id}`);
      assert.ok(made.headers.get('etag'));

      const read = await call(world, 'GET', `/admin/webhooks/${id}`, { as: 'auditor' });
      assert.equal(read.status, 200);
      assert.equal(read.body.secret, undefined, 'the secret is shown once');
      assert.equal(read.text.includes(made.body.secret), false);
      assert.deepEqual(read.body.events, ['client.created', 'client.deleted']);
      assert.equal(read.body.disabled, false);
      const etag = read.headers.get('etag')!;
      assert.equal(made.headers.get('etag'), etag);
      const listed = await call(world, 'GET', '/admin/webhooks?limit=500', { as: 'support' });
      assert.equal(listed.text.includes(made.body.secret), false);
      assert.ok(listed.body.items.some((h: { id: string }) => h.id === id));

      const path = `/admin/webhooks/${id}`;
      const body = { events: ['grant.created'] };
      assert.equal((await call(world, 'PATCH', path, { as: 'operator', body })).status, 428);
      const stale = await call(world, 'PATCH', path, {
        as: 'operator',
        body,
        headers: { 'if-match': '"stale"' },
      });
      assert.equal(stale.status, 412);
      assert.match(stale.headers.get('content-type') ?? '', PROBLEM);
      const { result: changed, row } = await audited('webhook.updated', 'operator', (from) =>
        call(world, 'PATCH', path, { as: 'operator', body, headers: { 'if-match': etag }, from }),
      );
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.body.events, ['grant.created']);
      assert.deepEqual(row.detail.fields, ['events']);
      assert.notEqual(changed.headers.get('etag'), etag);
      const unknownEvent = await call(world, 'PATCH', path, {
        as: 'operator',
        body: { events: ['no.such'] },
        headers: { 'if-match': '*' },
      });
      assert.equal(unknownEvent.status, 400);
      assert.equal(unknownEvent.body.field, 'events');

      // The ETag read before the change no longer matches.
      const late = await call(world, 'POST', `${path}/disable`, {
        as: 'operator',
        headers: { 'if-match': etag },
      });
      assert.equal(late.status, 412);
      const { result: disabled } = await audited('webhook.disabled', 'operator', (from) =>
        call(world, 'POST', `${path}/disable`, { as: 'operator', from }),
      );
      assert.equal(disabled.body.disabled, true);
      assert.ok(disabled.body.disabledAt);
      const { result: enabled } = await audited('webhook.enabled', 'operator', (from) =>
        call(world, 'POST', `${path}/enable`, { as: 'operator', from }),
      );
      assert.equal(enabled.body.disabled, false);
      assert.equal(enabled.body.disabledAt, null);

      const { result: removed } = await audited('webhook.removed', 'operator', (from) =>
        call(world, 'DELETE', path, { as: 'operator', from }),
      );
      assert.equal(removed.status, 204);
      const gone = await call(world, 'GET', path, { as: 'auditor' });
      assert.equal(gone.status, 404);
      assert.match(gone.headers.get('content-type') ?? '', PROBLEM);
      assert.equal((await call(world, 'DELETE', path, { as: 'operator' })).status, 404);
    });

    it('refuses a webhook URL the worker may not reach, and unknown events, naming the field', async () => {
      for (const [url, events] of [
        ['http://127.0.0.1:9/in', ['*']],
        ['ftp://siem.example/in', ['*']],
        ['https://siem.example/in', ['no.such.event']],
      ] as const) {
        const refused = await call(world, 'POST', '/admin/webhooks', {
          as: 'operator',
          body: { url, events },
        });
        assert.equal(refused.status, 400, url);
        assert.match(refused.headers.get('content-type') ?? '', PROBLEM);
        assert.equal(typeof refused.body.field, 'string');
      }
    });

    it('pages webhooks and each hook’s deliveries by cursor, newest first, every one once', async () => {
      const hook = (await addHook(['client.created'])).body as { id: string };
      const other = (await addHook(['client.created'])).body as { id: string };
      for (let index = 0; index < 5; index += 1) {
        await world.provider.clients.register({ name: `Paged ${index}` });
        world.advance(1000);
      }
      await world.provider.webhooks.settled();
      const seen: Array<{ id: string; createdAt: string; webhookId: string }> = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '' : `&cursor=${cursor}`;
        const page = await call(
          world,
          'GET',
          `/admin/webhooks/${hook.id}/deliveries?limit=2${query}`,
          {
            as: 'auditor',
          },
        );
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.items.length <= 2);
        seen.push(...page.body.items);
        cursor = page.body.next;
        pages += 1;
      } while (cursor !== null);
      assert.equal(seen.length, 5);
      assert.equal(pages, 3);
      assert.equal(new Set(seen.map((d) => d.id)).size, 5);
      assert.ok(seen.every((d) => d.webhookId === hook.id));
      const times = seen.map((d) => Date.parse(d.createdAt));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
        'newest first',
      );
      const every = await call(world, 'GET', '/admin/webhook-deliveries?limit=500', {
        as: 'auditor',
      });
      assert.ok(every.body.items.some((d: { webhookId: string }) => d.webhookId === other.id));
      const named = await call(world, 'GET', `/admin/webhook-deliveries?webhook=${other.id}`, {
        as: 'auditor',
      });
      assert.equal(named.body.items.length, 5);
      const unknown = await call(world, 'GET', '/admin/webhook-deliveries?webhook=wh_none', {
        as: 'auditor',
      });
      assert.deepEqual(unknown.body.items, []);
      assert.equal(
        (await call(world, 'GET', '/admin/webhooks/wh_none/deliveries', { as: 'auditor' })).status,
        404,
      );
      for (const query of ['cursor=forged', 'limit=0', 'limit=501', 'other=1']) {
        const refused = await call(world, 'GET', `/admin/webhooks/${hook.id}/deliveries?${query}`, {
          as: 'auditor',
        });
        assert.equal(refused.status, 400, query);
        assert.match(refused.headers.get('content-type') ?? '', PROBLEM);
      }
      const hooks: string[] = [];
      cursor = null;
      do {
        const query: string = cursor === null ? '' : `&cursor=${cursor}`;
        const page = await call(world, 'GET', `/admin/webhooks?limit=1${query}`, { as: 'auditor' });
        hooks.push(...page.body.items.map((h: { id: string }) => h.id));
        cursor = page.body.next;
      } while (cursor !== null);
      assert.equal(new Set(hooks).size, hooks.length);
      assert.ok(hooks.includes(hook.id) && hooks.includes(other.id));
    });

    it('reports the keys as the CLI does, and refuses to rotate without a key file', async () => {
      const keys = await call(world, 'GET', '/admin/keys', { as: 'auditor' });
      assert.deepEqual(Object.keys(keys.body), [
        'source',
        'keyFile',
        'current',
        'rows',
        'unused',
        'missing',
      ]);
      const rotate = await call(world, 'POST', '/admin/keys/rotate', { as: 'operator' });
      assert.equal(rotate.status, 400);
      assert.match(rotate.headers.get('content-type') ?? '', PROBLEM);
      assert.match(rotate.body.detail, /key file/);
    });

    it('creates an account, sets its password and issues tokens for an operator (audited)', async () => {
      const { result: made } = await audited('owner.created', 'operator', (from) =>
        call(world, 'POST', '/admin/owners', {
          as: 'operator',
          body: { username: 'frank', password: 'correct horse battery' },
          from,
        }),
      );
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.username, 'frank');
      assert.equal(made.text.includes('correct horse'), false);
      const id = made.body.id as string;
      const duplicate = await call(world, 'POST', '/admin/owners', {
        as: 'operator',
        body: { username: 'frank', password: 'correct horse battery' },
      });
      assert.ok(duplicate.status >= 400 && duplicate.status < 500, duplicate.text);
      const { result: set } = await audited('owner.password-set', 'operator', (from) =>
        call(world, 'POST', `/admin/owners/${id}/password`, {
          as: 'operator',
          body: { password: 'battery staple horse' },
          from,
        }),
      );
      assert.equal(set.status, 204);
      assert.ok(await world.provider.owners.authenticate('frank', 'battery staple horse'));
      const client = await world.provider.clients.register({ name: 'Issued to' });
      const { result: issued, row } = await audited('token.issued', 'operator', (from) =>
        call(world, 'POST', '/admin/tokens', {
          as: 'operator',
          body: { client: client.key, owner: id, lifetime: 3600 },
          from,
        }),
      );
      assert.equal(issued.status, 201, issued.text);
      assert.equal(typeof issued.body.secret, 'string');
      assert.equal(issued.body.ownerId, id);
      assert.ok(issued.body.expiresAt);
      assert.equal(JSON.stringify(row).includes(issued.body.secret), false);
      const stored = await world.provider.tokens.find(issued.body.token);
      assert.equal(stored?.clientKey, client.key);
      for (const [body, status] of [
        [{ client: 'no-such', owner: id }, 404],
        [{ client: client.key, owner: 'no-such' }, 404],
        [{ client: client.key, owner: id, scope: 'no-such-scope' }, 400],
      ] as const) {
        const refused = await call(world, 'POST', '/admin/tokens', { as: 'operator', body });
        assert.equal(refused.status, status, refused.text);
      }
    });
  });
}
