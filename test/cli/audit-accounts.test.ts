// docs/security.md, the audit trail: what an operator does to accounts and tokens is recorded
// with the owner (`latchkey users add|passwd|remove`, `latchkey tokens issue`), never a
// password or a secret; and over HTTP, a denial carries the owner who denied and a client's
// own revocation (`POST /oauth/invalidate_token`) the address it came from.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { invalidateToken } from '../../src/client/index.ts';
import { authorizePath, BASE, connect, injectFetch, startWeb } from '../web/support.ts';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

interface AuditJson {
  event: string;
  actor: string;
  owner: string | null;
  client: string | null;
  address: string | null;
  detail: Record<string, unknown>;
}

describe('the audit trail of accounts and tokens', () => {
  it('records users add, passwd, remove and tokens issue with the owner, and no secret', async () => {
    await space.ok(['users', 'add', '--username', 'erin', '--password-stdin'], {
      input: 'erin-password-1',
    });
    const users = JSON.parse(await space.ok(['users', 'list', '--json'])) as Array<{
      id: string;
    }>;
    const erin = users[0]!.id;
    await space.ok(['users', 'passwd', 'erin', '--password-stdin'], { input: 'erin-password-2' });
    const client = JSON.parse(await space.ok(['clients', 'add', '--name', 'A', '--json'])) as {
      key: string;
    };
    const issued = JSON.parse(
      await space.ok(['tokens', 'issue', '--client', client.key, '--user', 'erin', '--json']),
    ) as { secret: string };
    await space.ok(['users', 'remove', 'erin']);
    const output = await space.ok(['audit', '--json']);
    const all = JSON.parse(output) as AuditJson[];
    const about = (event: string) => all.find((e) => e.event === event);
    for (const event of ['owner.created', 'owner.password-set', 'token.issued', 'owner.removed']) {
      assert.equal(about(event)?.owner, erin, `${event}: ${output}`);
      assert.equal(about(event)?.actor, 'operator');
    }
    assert.equal(about('token.issued')?.client, client.key);
    for (const secret of ['erin-password-1', 'erin-password-2', issued.secret]) {
      assert.ok(!output.includes(secret));
    }
  });

  it('records a denial with the owner who denied, and a client’s own revocation with its address', async () => {
    const world = await startWeb();
    try {
      const alice = await world.owner('alice');
      const browser = world.browser('192.0.2.7');
      await browser.signIn('alice');
      const client = await world.client();
      const temporary = await world.temporary(client);
      const page = await browser.get(authorizePath(temporary));
      const recorded = once(world.provider.events, 'audit');
      await browser.post(
        '/oauth/authorize',
        { oauth_token: temporary.token, decision: 'deny' },
        page,
      );
      await recorded;
      const [denied] = await world.provider.audit.list({ ownerId: alice.id });
      assert.deepEqual(
        [denied?.event, denied?.ownerId, denied?.clientKey, denied?.address],
        ['authorization.denied', alice.id, client.key, '192.0.2.7'],
      );

      const { token } = await connect(world, browser, client);
      const revoked = new Promise<{ event: string; address: string | null }>((resolve) => {
        const on = (entry: { event: string; address: string | null }) => {
          if (entry.event !== 'token.revoked') return;
          world.provider.events.off('audit', on);
          resolve(entry);
        };
        world.provider.events.on('audit', on);
      });
      await invalidateToken(`${BASE}/oauth/invalidate_token`, {
        client: { key: client.key, secret: client.secret },
        token,
        fetch: injectFetch(world.app),
      });
      const entry = await revoked;
      assert.equal(entry.address, '127.0.0.1');
    } finally {
      await world.close();
    }
  });
});
