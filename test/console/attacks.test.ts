// The operator console under attack: no session, a forged CSRF token, a role's forbidden
// action forged, a flood of wrong tokens at sign-in, oversized and slow bodies, and a
// fast-check hunt over the pages' filters for a 500.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CONSOLE_SESSION_LIFETIME_SECONDS } from '../../src/provider/admin/console-sessions.ts';
import { ADMIN_AUTH_FAILURES_PER_MINUTE } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { AdminWorld } from '../admin/support.ts';
import { CONSOLE, Visitor, signedIn, startConsole } from './support.ts';

describe('Operator console under attack', () => {
  let world: AdminWorld;
  let key: string;
  before(async () => {
    world = await startConsole(createSqliteStore({ path: ':memory:' }));
    key = (await world.provider.clients.register({ name: 'Target app' })).key;
  });
  after(() => world?.close());

  it('sends a caller without a session to the sign-in page, for pages and actions alike', async () => {
    const nobody = new Visitor(world);
    for (const [method, path] of [
      ['GET', `${CONSOLE}/clients`],
      ['GET', `${CONSOLE}/audit?event=client.`],
      ['GET', `${CONSOLE}/clients/${key}`],
      ['POST', `${CONSOLE}/clients/${key}/disable`],
    ] as const) {
      const answer = await nobody.request(method, path, method === 'POST' ? {} : undefined);
      assert.equal(answer.status, 303, path);
      assert.match(answer.headers.get('location') ?? '', /^\/admin\/console\/signin\?next=/);
    }
    // A cookie the console never gave is no session either.
    nobody.cookies.set('__Host-latchkey_console', 'x'.repeat(43));
    assert.equal((await nobody.request('GET', `${CONSOLE}/clients`)).status, 303);
    assert.equal((await world.provider.clients.get(key)).disabled, false);
  });

  it('keeps the session cookie HttpOnly, SameSite=Strict and free of the token, and ends it at sign-out', async () => {
    const visitor = new Visitor(world);
    const csrf = await visitor.csrf();
    const answer = await visitor.request('POST', `${CONSOLE}/signin`, {
      _csrf: csrf,
      token: world.tokens.auditor,
    });
    assert.equal(answer.status, 303);
    const line = answer.headers.getSetCookie().find((c) => c.includes('latchkey_console='));
    assert.ok(line !== undefined);
    assert.match(line, /HttpOnly/i);
    assert.match(line, /SameSite=Strict/i);
    assert.match(line, /Secure/i); // behind the trusted proxy
    assert.ok(!line.includes(world.tokens.auditor.slice(4, 20)));
    const session = visitor.cookies.get('__Host-latchkey_console')!;
    assert.equal((await visitor.request('GET', `${CONSOLE}/clients`)).status, 200);
    assert.equal((await visitor.post(`${CONSOLE}/signout`, {})).status, 303);
    // The old value, replayed, no longer opens anything: the session ended on the server.
    visitor.cookies.set('__Host-latchkey_console', session);
    assert.equal((await visitor.request('GET', `${CONSOLE}/clients`)).status, 303);
    // Both moments are in the audit trail under the token's name, never the token.
    const recent = await world.provider.audit.list({ limit: 20 });
    for (const name of ['admin.console-signed-in', 'admin.console-signed-out']) {
      const event = recent.find((e) => e.event === name);
      assert.ok(event !== undefined, `${name} is audited`);
      assert.equal(JSON.parse(event.detail ?? '{}').name, 'auditor');
      assert.ok(!(event.detail ?? '').includes(world.tokens.auditor));
    }
  });

  it('ends a session when its admin token is revoked, and when its lifetime is over', async () => {
    const { token } = await world.provider.admin.tokens.add('short-lived', 'auditor');
    const visitor = new Visitor(world);
    assert.equal((await visitor.signIn(token)).status, 303);
    assert.equal((await visitor.request('GET', `${CONSOLE}/clients`)).status, 200);
    await world.provider.admin.tokens.revoke('short-lived');
    assert.equal((await visitor.request('GET', `${CONSOLE}/clients`)).status, 303);

    const later = await signedIn(world, 'auditor');
    world.advance((CONSOLE_SESSION_LIFETIME_SECONDS - 1) * 1000);
    assert.equal((await later.request('GET', `${CONSOLE}/clients`)).status, 200);
    world.advance(1000);
    assert.equal((await later.request('GET', `${CONSOLE}/clients`)).status, 303);
  });

  it('refuses a forged or missing CSRF token with 403 and changes nothing', async () => {
    const operator = await signedIn(world, 'operator');
    const forged = await operator.request('POST', `${CONSOLE}/clients/${key}/disable`, {
      _csrf: 'forged-token',
    });
    assert.equal(forged.status, 403);
    assert.match(forged.text, /expired or was not sent from the console/);
    const missing = await operator.request('POST', `${CONSOLE}/clients/${key}/disable`, {});
    assert.equal(missing.status, 403);
    // Another session's token is refused too: tokens are bound to the session.
    const other = await signedIn(world, 'operator');
    const stolen = await other.csrf(`${CONSOLE}/clients`);
    const crossed = await operator.request('POST', `${CONSOLE}/clients/${key}/disable`, {
      _csrf: stolen,
    });
    assert.equal(crossed.status, 403);
    assert.equal((await world.provider.clients.get(key)).disabled, false);
  });

  it('refuses with 403 an action the role may not take, forged past the pages that hide it', async () => {
    const auditor = await signedIn(world, 'auditor');
    const page = await auditor.request('GET', `${CONSOLE}/clients/${key}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /action=disable|action=rotate|action=revoke/);
    const forged = await auditor.post(`${CONSOLE}/clients/${key}/disable`, {});
    assert.equal(forged.status, 403);
    const confirm = await auditor.request(
      'GET',
      `${CONSOLE}/clients/${key}/confirm?action=disable`,
    );
    assert.equal(confirm.status, 403);
    const support = await signedIn(world, 'support');
    assert.equal((await support.post(`${CONSOLE}/clients/${key}/rotate`, {})).status, 403);
    assert.equal((await support.post(`${CONSOLE}/clients/${key}/enable`, {})).status, 403);
    assert.equal((await support.post(`${CONSOLE}/clients/${key}/delete`, {})).status, 403);
    assert.equal((await world.provider.clients.get(key)).disabled, false);
  });

  it('limits a flood of wrong tokens at sign-in as the admin API does, then lets the address back', async () => {
    const visitor = new Visitor(world);
    const csrf = await visitor.csrf();
    for (let index = 0; index < ADMIN_AUTH_FAILURES_PER_MINUTE; index += 1) {
      const wrong = await visitor.request('POST', `${CONSOLE}/signin`, {
        _csrf: csrf,
        token: index % 2 === 0 ? `lka_0123456789abcdef_${'x'.repeat(43)}` : 'not a token',
      });
      assert.equal(wrong.status, 401);
    }
    const over = await visitor.request('POST', `${CONSOLE}/signin`, {
      _csrf: csrf,
      token: 'one more guess',
    });
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    // Guessing cannot go on: the right token from there is refused too, for now.
    const right = await visitor.request('POST', `${CONSOLE}/signin`, {
      _csrf: csrf,
      token: world.tokens.operator,
    });
    assert.equal(right.status, 429);
    assert.equal(visitor.cookies.has('__Host-latchkey_console'), false);
    world.advance(61_000);
    assert.equal((await visitor.signIn(world.tokens.operator)).status, 303);
  });

  it('refuses an oversized body with 413 and keeps answering while a body comes slowly', async () => {
    const operator = await signedIn(world, 'operator');
    const big = await operator.post(`${CONSOLE}/clients/${key}/disable`, {
      pad: 'x'.repeat(100_000),
    });
    assert.equal(big.status, 413);
    assert.equal((await world.provider.clients.get(key)).disabled, false);

    const { port } = new URL(world.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST ${CONSOLE}/signin HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntoken=',
    );
    assert.equal((await operator.request('GET', `${CONSOLE}/clients`)).status, 200);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    assert.equal((await operator.request('GET', `${CONSOLE}/clients`)).status, 200);
  });

  it('lets support revoke every token of an owner, and refuses an auditor', async () => {
    const owner = await world.provider.owners.create('bob', 'correct horse battery');
    const support = await signedIn(world, 'support');
    const confirm = await support.request('GET', `${CONSOLE}/owners/${owner.id}/revoke`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /Revoke every token of bob\?/);
    const done = await support.post(`${CONSOLE}/owners/${owner.id}/revoke`, {});
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `${CONSOLE}/owners?done=0`);
    const auditor = await signedIn(world, 'auditor');
    assert.equal((await auditor.post(`${CONSOLE}/owners/${owner.id}/revoke`, {})).status, 403);
  });

  it('records a console change with the admin token’s name', async () => {
    const operator = await signedIn(world, 'operator');
    const other = (await world.provider.clients.register({ name: 'Audited app' })).key;
    assert.equal((await operator.post(`${CONSOLE}/clients/${other}/disable`, {})).status, 303);
    const [event] = await world.provider.audit.list({ clientKey: other, limit: 1 });
    assert.equal(event?.event, 'client.disabled');
    assert.equal(event?.actor, 'admin');
    assert.equal(JSON.parse(event?.detail ?? '{}').admin, 'operator');
    const page = await operator.request(
      'GET',
      `${CONSOLE}/audit?event=client.disabled&client=${other}`,
    );
    assert.match(page.text, /client\.disabled/);
  });

  it('deletes a client for an operator, after its confirmation page', async () => {
    const operator = await signedIn(world, 'operator');
    const doomed = (await world.provider.clients.register({ name: 'Doomed app' })).key;
    const confirm = await operator.request(
      'GET',
      `${CONSOLE}/clients/${doomed}/confirm?action=delete`,
    );
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /Delete the client/);
    const done = await operator.post(`${CONSOLE}/clients/${doomed}/delete`, {});
    assert.equal(done.status, 303);
    assert.equal(await world.provider.clients.find(doomed), undefined);
    assert.equal((await operator.request('GET', `${CONSOLE}/clients/${doomed}`)).status, 404);
  });

  it('never answers 500 to any filter on the clients, owners and audit pages', async () => {
    const auditor = await signedIn(world, 'auditor');
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constantFrom('', '2026-11-28', '2026-11-28T08:30', '2026-13-45T99:99', 'client.', key),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/clients', '/owners', '/audit', '/keys', '/webhooks', `/clients/${key}`),
        fc.dictionary(
          fc.constantFrom(
            'q',
            'status',
            'cursor',
            'event',
            'client',
            'owner',
            'since',
            'until',
            'page',
            'done',
            'x',
          ),
          text,
        ),
        async (path, query) => {
          const answer = await auditor.request(
            'GET',
            `${CONSOLE}${path}?${new URLSearchParams(query).toString()}`,
          );
          assert.ok(
            [200, 400, 404].includes(answer.status),
            `${answer.status} ${path} ${JSON.stringify(query)}`,
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
