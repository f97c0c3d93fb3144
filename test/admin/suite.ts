// The admin API over HTTP, run on each store (sqlite.test.ts, postgres.test.ts): every route
// with the three roles (a support token cannot register a client: 403; no token: 401), paging
// by cursor, ETag and If-Match, and the audit row each change leaves, naming the admin token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { Store } from '../../src/store/index.ts';
import { call, freshAddress, recorded, startAdmin, type AdminWorld } from './support.ts';

const PROBLEM = /^application\/problem\+json/;

export function describeAdminApi(
  label: string,
  makeStore: () => Promise<Store>,
  skip?: string | false,
) {
  describe(`Admin API over HTTP (${label})`, { skip }, () => {
    let world: AdminWorld;
    before(async () => {
      world = await startAdmin(await makeStore());
    });
    after(() => world?.close());

    /** The newest audit rows of `event`, as the API answers them. */
    async function rows(event: string) {
      const answer = await call(world, 'GET', '/admin/audit?limit=1000', { as: 'auditor' });
      assert.equal(answer.status, 200, answer.text);
      return (answer.body.items as Array<Record<string, any>>).filter((e) => e.event === event); // eslint-disable-line @typescript-eslint/no-explicit-any
    }

    /** Makes a change and checks the one audit row it leaves: the admin, its address. */
    async function audited<T>(event: string, admin: string, change: (from: string) => Promise<T>) {
      const from = freshAddress();
      const stored = recorded(world.provider, event);
      const result = await change(from);
      await stored;
      const found = (await rows(event)).filter((e) => e.address === from);
      assert.equal(found.length, 1, `one ${event} row from ${from}`);
      assert.equal(found[0]!.actor, 'admin');
      assert.equal(found[0]!.detail.admin, admin);
      return { result, row: found[0]! };
    }

    it('refuses no token, an unknown, a malformed and a revoked one with 401 problems', async () => {
      const revoked = await world.provider.admin.tokens.add('leaver', 'operator');
      await world.provider.admin.tokens.revoke('leaver');
      const wrong = world.tokens.operator.slice(0, -4) + 'AAAA';
      for (const as of [
        undefined,
        { authorization: 'Bearer nope' },
        { authorization: `Bearer ${wrong}` },
        { authorization: `Basic ${world.tokens.operator}` },
        { authorization: `Bearer ${revoked.token}` },
      ]) {
        const answer = await call(world, 'GET', '/admin/clients', { as, from: freshAddress() });
        assert.equal(answer.status, 401, JSON.stringify(as));
        assert.match(answer.headers.get('content-type') ?? '', PROBLEM);
        assert.match(
          answer.headers.get('www-authenticate') ?? '',
          /^Bearer realm="latchkey-admin"/,
        );
        assert.deepEqual(Object.keys(answer.body).sort(), ['detail', 'status', 'title', 'type']);
        assert.equal(answer.body.status, 401);
        assert.equal(answer.body.type, 'about:blank');
      }
    });

    it('refuses an expired token', async () => {
      const expiring = await world.provider.admin.tokens.add('temp', 'auditor', {
        expiresInSeconds: 60,
      });
      const as = { authorization: `Bearer ${expiring.token}` };
      assert.equal((await call(world, 'GET', '/admin/whoami', { as })).status, 200);
      world.advance(61_000);
      const answer = await call(world, 'GET', '/admin/whoami', { as });
      assert.equal(answer.status, 401);
      assert.match(answer.body.detail, /expired/);
    });

    it('gives each role its actions: auditor reads, support reads and stops access, operator does all', async () => {
      for (const role of ['operator', 'auditor', 'support'] as const) {
        const whoami = await call(world, 'GET', '/admin/whoami', { as: role });
        assert.equal(whoami.status, 200);
        assert.equal(whoami.body.name, role);
        assert.equal(whoami.body.role, role);
      }
      const register = { name: 'Refused app' };
      for (const role of ['support', 'auditor'] as const) {
        const answer = await call(world, 'POST', '/admin/clients', { as: role, body: register });
        assert.equal(answer.status, 403, role);
        assert.match(answer.headers.get('content-type') ?? '', PROBLEM);
      }
      const made = await call(world, 'POST', '/admin/clients', { as: 'operator', body: register });
      assert.equal(made.status, 201);
      const key = made.body.key as string;
      assert.equal(
        (await call(world, 'GET', `/admin/clients/${key}`, { as: 'auditor' })).status,
        200,
      );
      assert.equal(
        (await call(world, 'POST', `/admin/clients/${key}/disable`, { as: 'auditor' })).status,
        403,
      );
      assert.equal(
        (await call(world, 'POST', `/admin/clients/${key}/disable`, { as: 'support' })).status,
        200,
      );
      assert.equal(
        (await call(world, 'POST', `/admin/clients/${key}/enable`, { as: 'support' })).status,
        403,
      );
      assert.equal(
        (await call(world, 'POST', `/admin/clients/${key}/rotate-secret`, { as: 'support' }))
          .status,
        403,
      );
      assert.equal(
        (await call(world, 'DELETE', `/admin/clients/${key}`, { as: 'support' })).status,
        403,
      );
      assert.equal(
        (await call(world, 'POST', '/admin/keys/reseal', { as: 'support' })).status,
        403,
      );
      assert.equal(
        (await call(world, 'POST', `/admin/clients/${key}/enable`, { as: 'operator' })).status,
        200,
      );
      // Nothing a refused call asked for happened.
      const client = await world.provider.clients.get(key);
      assert.equal(client.disabled, false);
      assert.equal(client.name, 'Refused app');
    });

    it('registers, reads, changes (If-Match), disables, rotates and deletes a client, each change audited', async () => {
      const { result: made } = await audited('client.created', 'operator', (from) =>
        call(world, 'POST', '/admin/clients', {
          as: 'operator',
          from,
          body: {
            name: 'Ledger',
            website: 'https://ledger.example',
            callbacks: ['https://ledger.example/cb'],
          },
        }),
      );
      assert.equal(made.status, 201, made.text);
      const key = made.body.key as string;
      assert.equal(made.headers.get('location'), `/admin/clients/${key}`);
      assert.equal(typeof made.body.secret, 'string');
      const read = await call(world, 'GET', `/admin/clients/${key}`, { as: 'auditor' });
      assert.equal(read.status, 200);
      assert.equal(read.body.secret, undefined, 'a read never shows the secret');
      const etag = read.headers.get('etag')!;
      assert.equal(made.headers.get('etag'), etag);

      const change = { name: 'Ledger Pro', requestsPerMinute: 600 };
      const without = await call(world, 'PATCH', `/admin/clients/${key}`, {
        as: 'operator',
        body: change,
      });
      assert.equal(without.status, 428);
      const stale = await call(world, 'PATCH', `/admin/clients/${key}`, {
        as: 'operator',
        body: change,
        headers: { 'if-match': '"not-the-tag"' },
      });
      assert.equal(stale.status, 412);
      assert.match(stale.headers.get('content-type') ?? '', PROBLEM);
      const { result: changed, row } = await audited('client.updated', 'operator', (from) =>
        call(world, 'PATCH', `/admin/clients/${key}`, {
          as: 'operator',
          from,
          body: change,
          headers: { 'if-match': etag },
        }),
      );
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.name, 'Ledger Pro');
      assert.equal(changed.body.requestsPerMinute, 600);
      assert.deepEqual(row.detail.fields, ['name', 'requestsPerMinute']);
      assert.notEqual(changed.headers.get('etag'), etag);
      // Another admin still holding the old tag is refused: the change is not lost.
      const late = await call(world, 'PATCH', `/admin/clients/${key}`, {
        as: 'operator',
        body: { name: 'Overwritten' },
        headers: { 'if-match': etag },
      });
      assert.equal(late.status, 412);
      assert.equal((await world.provider.clients.get(key)).name, 'Ledger Pro');
      const unknownField = await call(world, 'PATCH', `/admin/clients/${key}`, {
        as: 'operator',
        body: { secret: 'chosen' },
        headers: { 'if-match': changed.headers.get('etag')! },
      });
      assert.equal(unknownField.status, 400);
      const badInput = await call(world, 'PATCH', `/admin/clients/${key}`, {
        as: 'operator',
        body: { callbacks: ['not a url'] },
        headers: { 'if-match': changed.headers.get('etag')! },
      });
      assert.equal(badInput.status, 400);
      assert.equal(typeof badInput.body.field, 'string');

      // Disabled: its next signed request is refused.
      const owner = await world.provider.owners.create('dora', 'correct horse battery');
      const issued = await world.provider.tokens.issue({ clientKey: key, ownerId: owner.id });
      const signed = () => {
        const request = signRequest({
          method: 'GET',
          url: `${world.url}/api/me`,
          client: { key, secret: made.body.secret },
          token: { token: issued.token, secret: issued.secret },
        });
        return fetch(request.url, { headers: request.headers });
      };
      assert.equal((await signed()).status, 200);
      await audited('client.disabled', 'support', (from) =>
        call(world, 'POST', `/admin/clients/${key}/disable`, { as: 'support', from }),
      );
      const refused = await signed();
      assert.equal(refused.status, 401);
      assert.match(await refused.text(), /oauth_problem=consumer_key_rejected/);
      await audited('client.enabled', 'operator', (from) =>
        call(world, 'POST', `/admin/clients/${key}/enable`, { as: 'operator', from }),
      );
      assert.equal((await signed()).status, 200);

      const current = (
        await call(world, 'GET', `/admin/clients/${key}`, { as: 'auditor' })
      ).headers.get('etag')!;
      const { result: rotated } = await audited('client.secret-rotated', 'operator', (from) =>
        call(world, 'POST', `/admin/clients/${key}/rotate-secret`, {
          as: 'operator',
          from,
          headers: { 'if-match': current },
        }),
      );
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.secret, made.body.secret);
      assert.equal((await signed()).status, 401, 'the old secret is refused');

      const staleDelete = await call(world, 'DELETE', `/admin/clients/${key}`, {
        as: 'operator',
        headers: { 'if-match': etag },
      });
      assert.equal(staleDelete.status, 412, 'a tag read before the change is refused');
      await audited('client.deleted', 'operator', (from) =>
        call(world, 'DELETE', `/admin/clients/${key}`, { as: 'operator', from }),
      );
      assert.equal(
        (await call(world, 'GET', `/admin/clients/${key}`, { as: 'auditor' })).status,
        404,
      );
      const trail = JSON.stringify(
        (await call(world, 'GET', '/admin/audit', { as: 'auditor' })).body,
      );
      assert.equal(trail.includes(made.body.secret), false, 'no secret in the trail');
      assert.equal(trail.includes(rotated.body.secret), false, 'no secret in the trail');
    });

    it('pages clients by cursor, every client once, with filters', async () => {
      const made: string[] = [];
      for (let index = 0; index < 5; index++) {
        made.push((await world.provider.clients.register({ name: `Paged ${index}` })).key);
      }
      await world.provider.clients.setDisabled(made[0]!, true);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `?q=paged&limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const page = await call(world, 'GET', `/admin/clients${query}`, { as: 'auditor' });
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.items.length <= 2);
        seen.push(...page.body.items.map((c: { key: string }) => c.key));
        cursor = page.body.next;
        pages += 1;
      } while (cursor !== null);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...made].sort());
      const disabled = await call(world, 'GET', '/admin/clients?q=paged&disabled=true', {
        as: 'auditor',
      });
      assert.deepEqual(
        disabled.body.items.map((c: { key: string }) => c.key),
        [made[0]],
      );
      for (const query of [
        'cursor=bm90IG91cnM',
        'limit=0',
        'limit=9999',
        'disabled=maybe',
        'unknown=1',
      ]) {
        const answer = await call(world, 'GET', `/admin/clients?${query}`, { as: 'auditor' });
        assert.equal(answer.status, 400, query);
        assert.match(answer.headers.get('content-type') ?? '', PROBLEM);
      }
    });

    it('lists, reads and deletes owners with their grants (audited)', async () => {
      const erin = await world.provider.owners.create('erin', 'correct horse battery');
      const client = await world.provider.clients.register({ name: 'Owner app' });
      const issued = await world.provider.tokens.issue({ clientKey: client.key, ownerId: erin.id });
      const list = await call(world, 'GET', '/admin/owners?q=erin', { as: 'auditor' });
      assert.deepEqual(
        list.body.items.map((o: { id: string }) => o.id),
        [erin.id],
      );
      assert.equal(JSON.stringify(list.body).includes('passwordHash'), false);
      const read = await call(world, 'GET', `/admin/owners/${erin.id}`, { as: 'support' });
      assert.equal(read.status, 200);
      assert.equal(read.body.username, 'erin');
      assert.ok(read.headers.get('etag'));
      assert.equal(
        (await call(world, 'DELETE', `/admin/owners/${erin.id}`, { as: 'support' })).status,
        403,
      );
      const { result } = await audited('owner.removed', 'operator', (from) =>
        call(world, 'DELETE', `/admin/owners/${erin.id}`, { as: 'operator', from }),
      );
      assert.equal(result.status, 204);
      assert.equal(
        (await call(world, 'GET', `/admin/owners/${erin.id}`, { as: 'auditor' })).status,
        404,
      );
      assert.equal(
        await world.provider.tokens.find(issued.token),
        undefined,
        'their tokens went with them',
      );
    });

    it('shows each token’s device hint: the User-Agent of its first verified request, and its short form', async () => {
      const hank = await world.provider.owners.create('hank', 'correct horse battery');
      const client = await world.provider.clients.register({ name: 'Device app' });
      const issued = await world.provider.tokens.issue({ clientKey: client.key, ownerId: hank.id });
      const show = async () =>
        (await call(world, 'GET', `/admin/tokens/${issued.token}`, { as: 'auditor' })).body;
      assert.equal((await show()).deviceHint, null);
      assert.equal((await show()).device, null);
      const signed = (agent: string) => {
        const request = signRequest({
          method: 'GET',
          url: `${world.url}/api/me`,
          client: { key: client.key, secret: client.secret },
          token: { token: issued.token, secret: issued.secret },
        });
        return fetch(request.url, { headers: { ...request.headers, 'user-agent': agent } });
      };
      assert.equal((await signed('curl/8.5.0')).status, 200);
      assert.equal((await signed('Wget/1.21.4')).status, 200);
      await world.provider.flushLastUse(); // written with the batched last use
      const shown = await show();
      assert.equal(shown.deviceHint, 'curl/8.5.0');
      assert.equal(shown.device, 'curl/8.5');
      const listed = await call(world, 'GET', `/admin/tokens?owner=${hank.id}`, { as: 'auditor' });
      assert.equal(listed.body.items[0].deviceHint, 'curl/8.5.0');
    });

    it('lists tokens and grants by client and owner, revokes one, a grant, and all (audited)', async () => {
      const fay = await world.provider.owners.create('fay', 'correct horse battery');
      const gus = await world.provider.owners.create('gus', 'correct horse battery');
      const client = await world.provider.clients.register({ name: 'Token app' });
      const issue = (ownerId: string) =>
        world.provider.tokens.issue({ clientKey: client.key, ownerId });
      const [t1, t2, t3, t4] = [
        await issue(fay.id),
        await issue(fay.id),
        await issue(gus.id),
        await issue(gus.id),
      ];
      const byClient = await call(world, 'GET', `/admin/tokens?client=${client.key}`, {
        as: 'auditor',
      });
      assert.equal(byClient.body.items.length, 4);
      assert.equal(
        JSON.stringify(byClient.body).includes(t1!.secret),
        false,
        'never a token secret',
      );
      const byOwner = await call(world, 'GET', `/admin/tokens?owner=${fay.id}&limit=1`, {
        as: 'auditor',
      });
      assert.equal(byOwner.body.items.length, 1);
      assert.equal(typeof byOwner.body.next, 'string');
      const grants = await call(world, 'GET', `/admin/grants?client=${client.key}`, {
        as: 'auditor',
      });
      assert.deepEqual(
        grants.body.items
          .map((g: { ownerId: string; activeTokens: number }) => [g.ownerId, g.activeTokens])
          .sort(),
        [
          [fay.id, 2],
          [gus.id, 2],
        ].sort(),
      );
      const one = await call(world, 'GET', `/admin/tokens/${t1!.token}`, { as: 'auditor' });
      assert.equal(one.body.status, 'active');

      const { result: revoked } = await audited('token.revoked', 'support', (from) =>
        call(world, 'POST', `/admin/tokens/${t1!.token}/revoke`, { as: 'support', from }),
      );
      assert.deepEqual(revoked.body, { revoked: 1 });
      const again = await call(world, 'POST', `/admin/tokens/${t1!.token}/revoke`, {
        as: 'support',
      });
      assert.deepEqual(again.body, { revoked: 0 });
      assert.equal(
        (await call(world, 'POST', '/admin/tokens/no-such/revoke', { as: 'support' })).status,
        404,
      );
      assert.equal(
        (await call(world, 'POST', `/admin/tokens/${t2!.token}/revoke`, { as: 'auditor' })).status,
        403,
      );

      const { result: grant, row } = await audited('grant.revoked', 'support', (from) =>
        call(world, 'POST', '/admin/grants/revoke', {
          as: 'support',
          from,
          body: { client: client.key, owner: fay.id },
        }),
      );
      assert.deepEqual(grant.body, { revoked: 1 });
      assert.equal(row.ownerId, fay.id);

      const stored = recorded(world.provider, 'token.revoked');
      const all = await call(world, 'POST', '/admin/tokens/revoke', {
        as: 'support',
        body: { owner: gus.id },
      });
      assert.deepEqual(all.body, { revoked: 2 });
      await stored;
      assert.equal(
        (await call(world, 'POST', '/admin/tokens/revoke', { as: 'support', body: {} })).status,
        400,
      );
      const active = await call(world, 'GET', `/admin/tokens?client=${client.key}&status=active`, {
        as: 'auditor',
      });
      assert.deepEqual(active.body.items, []);
      for (const token of [t3, t4]) {
        assert.notEqual((await world.provider.tokens.find(token!.token))?.revokedAt, null);
      }
    });

    it('answers the audit trail with the CLI’s filters, and follows it as Server-Sent Events', async () => {
      const client = await world.provider.clients.register({ name: 'Audit app' });
      const hal = await world.provider.owners.create('hal', 'correct horse battery');
      const controller = new AbortController();
      const stream = await fetch(`${world.url}/admin/audit/stream?client=${client.key}`, {
        headers: {
          authorization: `Bearer ${world.tokens.auditor}`,
          'x-forwarded-for': freshAddress(),
        },
        signal: controller.signal,
      });
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      const disabled = await call(world, 'POST', `/admin/clients/${client.key}/disable`, {
        as: 'support',
      });
      assert.equal(disabled.status, 200);
      let text = '';
      while (!text.includes('event: audit')) text += (await reader.read()).value ?? '';
      while (!text.includes('\n\n', text.indexOf('event: audit')))
        text += (await reader.read()).value ?? '';
      const data = /event: audit\ndata: (.*)\n/.exec(text)![1]!;
      const event = JSON.parse(data);
      assert.equal(event.event, 'client.disabled');
      assert.equal(event.clientKey, client.key);
      assert.equal(event.detail.admin, 'support');
      controller.abort();
      await reader.cancel().catch(() => undefined);

      const byClient = await call(world, 'GET', `/admin/audit?client=${client.key}`, {
        as: 'auditor',
      });
      assert.deepEqual(
        byClient.body.items.map((e: { event: string }) => e.event),
        ['client.disabled', 'client.created'],
      );
      const byOwner = await call(world, 'GET', '/admin/audit?owner=hal', { as: 'auditor' });
      assert.ok(
        byOwner.body.items.length >= 1 &&
          byOwner.body.items.every((e: { ownerId: string }) => e.ownerId === hal.id),
      );
      const limited = await call(world, 'GET', '/admin/audit?limit=1', { as: 'auditor' });
      assert.equal(limited.body.items.length, 1);
      const later = new Date(world.now() + 3_600_000).toISOString();
      assert.deepEqual(
        (await call(world, 'GET', `/admin/audit?since=${later}`, { as: 'auditor' })).body.items,
        [],
      );
      assert.ok(
        (await call(world, 'GET', '/admin/audit?since=30m', { as: 'auditor' })).body.items.length >
          0,
      );
      for (const query of ['since=yesterday', 'limit=0', 'limit=5000']) {
        assert.equal(
          (await call(world, 'GET', `/admin/audit?${query}`, { as: 'auditor' })).status,
          400,
          query,
        );
      }
      assert.equal(
        (await call(world, 'GET', '/admin/audit?owner=nobody', { as: 'auditor' })).status,
        404,
      );
    });

    it('reports the sealing keys and re-seals for an operator (audited), health and version', async () => {
      const keys = await call(world, 'GET', '/admin/keys', { as: 'auditor' });
      assert.equal(keys.status, 200);
      assert.equal(typeof keys.body.rows, 'object');
      const { result } = await audited('secrets.resealed', 'operator', (from) =>
        call(world, 'POST', '/admin/keys/reseal', { as: 'operator', from }),
      );
      assert.equal(result.status, 200);
      assert.equal(typeof result.body.resealed, 'number');
      const health = await call(world, 'GET', '/admin/health', { as: 'auditor' });
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
      assert.match(health.body.version, /^\d+\.\d+\.\d+/);
    });

    it('records making and revoking an admin token as the operator’s (the CLI)', async () => {
      const made = recorded(world.provider, 'admin-token.created');
      await world.provider.admin.tokens.add('contractor', 'support', { expiresInSeconds: 3600 });
      await made;
      const revoked = recorded(world.provider, 'admin-token.revoked');
      await world.provider.admin.tokens.revoke('contractor');
      await revoked;
      const created = await rows('admin-token.created');
      assert.deepEqual(
        created.filter((e) => e.detail.name === 'contractor').map((e) => [e.actor, e.detail.role]),
        [['operator', 'support']],
      );
      const listed = await world.provider.admin.tokens.list();
      assert.equal(
        listed.some((t) => t.name === 'contractor'),
        false,
      );
      assert.equal(JSON.stringify(listed).includes('digest'), false);
      const stored = await world.store.adminTokens.list();
      for (const token of Object.values(world.tokens)) {
        assert.equal(
          JSON.stringify(stored).includes(token.slice('lka_0123456789abcdef_'.length)),
          false,
          'only digests are stored',
        );
      }
    });
  });
}
