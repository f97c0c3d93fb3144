// `latchkey admin-tokens`: a token made by the CLI works on the admin API with its role, is
// listed without its value, and stops working once revoked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { workspace } from '../cli/run-cli.ts';
import { call, startAdmin, type AdminWorld } from './support.ts';

describe('latchkey admin-tokens', () => {
  const space = workspace();
  let world: AdminWorld;
  before(async () => {
    await space.ok(['migrate']);
    world = await startAdmin(createSqliteStore({ path: space.database }));
  });
  after(async () => {
    await world?.close();
    space.remove();
  });

  it('adds a token shown once that works with its role, lists it, and revokes it', async () => {
    const made = JSON.parse(
      await space.ok([
        'admin-tokens',
        'add',
        'helpdesk',
        '--role',
        'support',
        '--expires',
        '30d',
        '--json',
      ]),
    ) as { name: string; role: string; token: string; expiresAt: string };
    assert.equal(made.role, 'support');
    assert.match(made.token, /^lka_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(made.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, String(days));
    const as = { authorization: `Bearer ${made.token}` };
    const whoami = await call(world, 'GET', '/admin/whoami', { as });
    assert.deepEqual([whoami.body.name, whoami.body.role], ['helpdesk', 'support']);
    assert.equal(
      (await call(world, 'POST', '/admin/clients', { as, body: { name: 'x' } })).status,
      403,
    );

    const listed = await space.ok(['admin-tokens', 'list']);
    assert.match(listed, /^helpdesk\s+support\s/m);
    assert.equal(listed.includes(made.token.slice(21)), false, 'the token is shown once only');

    const again = await space.run(['admin-tokens', 'add', 'helpdesk', '--role', 'auditor']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists/);

    await space.ok(['admin-tokens', 'revoke', 'helpdesk']);
    assert.equal((await call(world, 'GET', '/admin/whoami', { as })).status, 401);
    assert.equal((await space.run(['admin-tokens', 'revoke', 'helpdesk'])).code, 1);
  });

  it('refuses an unknown role or a malformed expiry as usage errors', async () => {
    const role = await space.run(['admin-tokens', 'add', 'x', '--role', 'root']);
    assert.equal(role.code, 2);
    const expiry = await space.run([
      'admin-tokens',
      'add',
      'x',
      '--role',
      'auditor',
      '--expires',
      'soon',
    ]);
    assert.equal(expiry.code, 2);
    assert.match(expiry.stderr, /90m, 12h or 30d/);
  });
});
