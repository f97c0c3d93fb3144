// The webhook, key and provisioning commands through a server's admin API (--server): the same
// output as on the database itself for `keys status` and `webhooks list` and `deliveries`, and
// the changes they make seen by the local commands.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { fileKeyring, keyFileBeside } from '../../src/store/key-file.ts';
import { workspace } from '../cli/run-cli.ts';
import { startAdmin, type AdminWorld } from '../admin/support.ts';

describe('the webhook, key and provisioning commands from anywhere (SQLite)', () => {
  const space = workspace();
  let world: AdminWorld;
  let remote: string[];
  let hook: string;
  before(async () => {
    await space.ok(['migrate']);
    const added = JSON.parse(
      await space.ok([
        'webhooks',
        'add',
        'https://siem.example/latchkey',
        '--events',
        'client.created,client.deleted',
        '--json',
      ]),
    ) as { id: string };
    hook = added.id;
    await space.ok(['webhooks', 'add', 'https://audit.example/in', '--events', '*']);
    for (const name of ['Photo printer', 'Calendar', 'Notes']) {
      await space.ok(['clients', 'add', '--name', name]);
    }
    // The server holds the key file beside the database, as serve does.
    const keyFile = keyFileBeside(space.database)!;
    const keyring = fileKeyring(keyFile);
    world = await startAdmin(createSqliteStore({ path: space.database, keyring }), {}, '', {
      sealingKeys: { source: 'beside-database', keyFile, keyring },
    });
    remote = ['--server', world.url, '--admin-token', world.tokens.operator];
  });
  after(async () => {
    await world?.close();
    space.remove();
  });

  it('prints keys status, webhooks list and deliveries byte for byte as the local commands do', async () => {
    for (const args of [
      ['keys', 'status'],
      ['keys', 'status', '--json'],
      ['webhooks', 'list'],
      ['webhooks', 'list', '--json'],
      ['webhooks', 'deliveries'],
      ['webhooks', 'deliveries', '--json'],
      ['webhooks', 'deliveries', hook],
      ['webhooks', 'deliveries', '--limit', '2'],
      ['webhooks', 'deliveries', 'wh_none'],
    ]) {
      const local = await space.run(args);
      const far = await space.run([...args, ...remote]);
      assert.equal(local.code, 0, local.stderr);
      assert.equal(far.stdout, local.stdout, args.join(' '));
      assert.equal(far.code, 0, far.stderr);
    }
    assert.match(await space.ok(['keys', 'status']), /current/);
    assert.equal((await space.ok(['webhooks', 'deliveries', hook])).trim().split('\n').length, 4);
    assert.equal(
      (await space.ok(['webhooks', 'deliveries', '--limit', '2'])).split('\n').length,
      4,
    );
  });

  it('reads the keys and hooks with an auditor token, and refuses it a change', async () => {
    const auditor = ['--server', world.url, '--admin-token', world.tokens.auditor];
    assert.equal(
      await space.ok(['webhooks', 'list', ...auditor]),
      await space.ok(['webhooks', 'list']),
    );
    const refused = await space.run(['webhooks', 'disable', hook, ...auditor]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^latchkey: \S+: 403 Forbidden: .+\n$/);
  });

  it('adds, disables, enables, changes and removes a webhook through the API', async () => {
    const added = await space.ok([
      'webhooks',
      'add',
      'https://far.example/in',
      '--events',
      'grant.created',
      ...remote,
    ]);
    const id = /Added webhook (\S+)\./.exec(added)![1]!;
    assert.match(added, /secret:\s+whsec_/);
    assert.match(await space.ok(['webhooks', 'disable', id, ...remote]), /Disabled webhook/);
    assert.match(await space.ok(['webhooks', 'list']), new RegExp(`${id}.*disabled`));
    await space.ok(['webhooks', 'enable', id, ...remote]);
    assert.match(await space.ok(['webhooks', 'list']), new RegExp(`${id}.*enabled`));
    const events = ['webhooks', 'update', id, '--events', 'grant.created,grant.revoked'];
    assert.match(
      await space.ok([...events, ...remote]),
      /now receives: grant\.created,grant\.revoked/,
    );
    assert.match(
      await space.ok(['webhooks', 'list']),
      new RegExp(`${id}.*grant\\.created,grant\\.revoked`),
    );
    await space.ok(['webhooks', 'remove', id, ...remote]);
    assert.equal((await space.ok(['webhooks', 'list'])).includes(id), false);
  });

  it('adds a user, sets their password and issues them a token through the API', async () => {
    const created = await space.run(
      ['users', 'add', '--username', 'yara', '--password-stdin', ...remote],
      { input: 'correct horse battery' },
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'Created user yara.\n');
    const changed = await space.run(['users', 'passwd', 'yara', '--password-stdin', ...remote], {
      input: 'battery staple horse',
    });
    assert.equal(changed.code, 0, changed.stderr);
    assert.equal(changed.stdout, 'Changed the password of yara.\n');
    assert.ok(await world.provider.owners.authenticate('yara', 'battery staple horse'));
    const [client] = JSON.parse(await space.ok(['clients', 'list', '--json'])) as { key: string }[];
    const issued = JSON.parse(
      await space.ok([
        'tokens',
        'issue',
        '--client',
        client!.key,
        '--user',
        'yara',
        '--lifetime',
        '3600',
        '--json',
        ...remote,
      ]),
    ) as { token: string; secret: string; user: string; expiresAt: string | null };
    assert.equal(issued.user, 'yara');
    assert.ok(issued.secret.length > 0);
    assert.ok(issued.expiresAt);
    assert.match(await space.ok(['tokens', 'list', '--user', 'yara']), new RegExp(issued.token));
  });

  it('rotates the server’s key file and re-seals through the API, as the local commands see', async () => {
    const before = JSON.parse(await space.ok(['keys', 'status', '--json'])) as { current: string };
    const rotated = JSON.parse(await space.ok(['keys', 'rotate', '--json', ...remote])) as {
      current: string;
      previous: string;
      resealed: number;
      rows: Record<string, number>;
    };
    assert.equal(rotated.previous, before.current);
    assert.notEqual(rotated.current, before.current);
    assert.ok(rotated.resealed > 0);
    const after = JSON.parse(await space.ok(['keys', 'status', '--json'])) as {
      current: string;
      rows: Record<string, number>;
    };
    assert.equal(after.current, rotated.current);
    assert.deepEqual(after.rows, rotated.rows);
    const row = (await world.provider.audit.list({})).find(
      (e) => e.event === 'secrets.key-rotated',
    );
    assert.ok(row, 'the rotation is audited');
    const far = await space.run(['keys', 'reseal', ...remote]);
    const local = await space.run(['keys', 'reseal']);
    assert.equal(far.code, 0, far.stderr);
    assert.equal(far.stdout, local.stdout);
  });
});
