// `latchkey audit`: the operator's own actions are in the trail (client created, secret
// rotated, disabled, deleted; an import), read newest first, filtered by client, user and
// time, as a table or JSON, and never with a secret.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

interface AuditJson {
  at: string;
  event: string;
  actor: string;
  owner: string | null;
  client: string | null;
  address: string | null;
  detail: Record<string, unknown>;
}

describe('latchkey audit', () => {
  it('lists what the operator did to clients, newest first, filtered, with no secret', async () => {
    const first = JSON.parse(await space.ok(['clients', 'add', '--name', 'One', '--json'])) as {
      key: string;
      secret: string;
    };
    const second = JSON.parse(await space.ok(['clients', 'add', '--name', 'Two', '--json'])) as {
      key: string;
      secret: string;
    };
    const rotated = await space.ok(['clients', 'rotate-secret', first.key, '--json']);
    await space.ok(['clients', 'disable', first.key]);
    await space.ok(['clients', 'remove', second.key]);

    const all = JSON.parse(await space.ok(['audit', '--json'])) as AuditJson[];
    assert.deepEqual(
      all.map((e) => [e.event, e.client, e.actor, e.address]),
      [
        ['client.deleted', second.key, 'operator', null],
        ['client.disabled', first.key, 'operator', null],
        ['client.secret-rotated', first.key, 'operator', null],
        ['client.created', second.key, 'operator', null],
        ['client.created', first.key, 'operator', null],
      ],
    );
    const output = JSON.stringify(all) + (await space.ok(['audit']));
    for (const secret of [
      first.secret,
      second.secret,
      (JSON.parse(rotated) as { secret: string }).secret,
    ]) {
      assert.equal(output.includes(secret), false);
    }
    const forFirst = JSON.parse(
      await space.ok(['audit', '--client', first.key, '--json']),
    ) as AuditJson[];
    assert.deepEqual(
      forFirst.map((e) => e.event),
      ['client.disabled', 'client.secret-rotated', 'client.created'],
    );
    assert.deepEqual(
      JSON.parse(await space.ok(['audit', '--since', '2999-01-01T00:00:00Z', '--json'])),
      [],
    );
    assert.equal(JSON.parse(await space.ok(['audit', '--since', '1h', '--json'])).length, 5);
    assert.match(await space.ok(['audit']), /^time\s+event\s+actor/);
  });

  it('refuses a --since it cannot read', async () => {
    const result = await space.run(['audit', '--since', 'yesterday-ish']);
    assert.equal(result.code, 2);
  });
});
