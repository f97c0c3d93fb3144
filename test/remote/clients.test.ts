// The operator commands through a server's admin API (--server, --admin-token, --profile):
// the same output as on the database itself, refusals and unreachable servers as one line.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { fileKeyring } from '../../src/store/key-file.ts';
import { workspace } from '../cli/run-cli.ts';
import { startAdmin, type AdminWorld } from '../admin/support.ts';

describe('the CLI from anywhere (SQLite)', () => {
  const space = workspace();
  let world: AdminWorld;
  let remote: string[];
  before(async () => {
    await space.ok(['migrate']);
    await space.ok([
      'clients',
      'add',
      '--name',
      'Photo printer',
      '--callback',
      'https://p.example/cb',
    ]);
    const calendar = JSON.parse(
      await space.ok(['clients', 'add', '--name', 'Calendar', '--json']),
    ) as { key: string };
    for (const username of ['zoe', 'adam']) {
      await space.ok(['users', 'add', '--username', username, '--password-stdin'], {
        input: 'correct horse battery',
      });
      await space.ok(['tokens', 'issue', '--client', calendar.key, '--user', username]);
    }
    // The server reads the secrets the CLI sealed with the key file beside the database.
    const keyring = fileKeyring(join(dirname(space.database), 'latchkey.key'));
    const store = createSqliteStore({ path: space.database, keyring });
    // Zoe's token was used from one device: its hint, as the batched last use writes it.
    const zoes = await store.tokenCredentials.list();
    await store.tokenCredentials.touch(
      new Map([[zoes[0]!.token, Date.now()]]),
      new Map([[zoes[0]!.token, 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Firefox/128.0']]),
    );
    world = await startAdmin(store);
    remote = ['--server', world.url, '--admin-token', world.tokens.operator];
  });
  after(async () => {
    await world?.close();
    space.remove();
  });

  it('lists clients byte for byte as the local command does, as a table and as JSON', async () => {
    for (const extra of [[], ['--json']]) {
      const local = await space.run(['clients', 'list', ...extra]);
      const far = await space.run(['clients', 'list', ...extra, ...remote]);
      assert.equal(local.code, 0);
      assert.equal(far.stdout, local.stdout);
      assert.equal(far.code, 0, far.stderr);
    }
    assert.match((await space.ok(['clients', 'list'])).split('\n')[0] ?? '', /^KEY\s+NAME/);
  });

  it('lists tokens, users and the audit trail byte for byte as the local commands do', async () => {
    for (const args of [
      ['tokens', 'list'],
      ['tokens', 'list', '--json'],
      ['tokens', 'list', '--user', 'zoe'],
      ['users', 'list'],
      ['users', 'list', '--json'],
      ['audit'],
      ['audit', '--json'],
      ['audit', '--user', 'zoe', '--limit', '2'],
    ]) {
      const local = await space.run(args);
      const far = await space.run([...args, ...remote]);
      assert.equal(local.code, 0, local.stderr);
      assert.equal(far.stdout, local.stdout, args.join(' '));
      assert.equal(far.code, 0, far.stderr);
    }
    assert.equal((await space.ok(['tokens', 'list', '--user', 'zoe'])).split('\n').length, 3);
    assert.match(await space.ok(['tokens', 'list', ...remote]), /Firefox on Linux/);
    assert.ok((await space.ok(['audit'])).split('\n').length > 4, 'events to compare');
  });

  it('says in one line that a command without an admin API counterpart runs locally', async () => {
    for (const [args, what] of [
      [['keys', 'prune'], '`latchkey keys prune`'],
      [['keys', 'status', '--backed-up'], '`latchkey keys status --backed-up`'],
      [['migrate'], '`latchkey migrate`'],
      [['export'], '`latchkey export`'],
      [['admin-tokens', 'list'], '`latchkey admin-tokens list`'],
    ] as const) {
      const local = await space.run([...args, ...remote]);
      assert.equal(local.code, 1);
      assert.equal(
        local.stderr,
        `latchkey: ${what} has no admin API counterpart: run it where the database is\n`,
      );
    }
  });

  it('shows a client the same way, and changes it through the API', async () => {
    const [first] = JSON.parse(await space.ok(['clients', 'list', '--json'])) as { key: string }[];
    const key = first!.key;
    assert.equal(
      await space.ok(['clients', 'show', key, ...remote]),
      await space.ok(['clients', 'show', key]),
    );
    assert.match(await space.ok(['clients', 'disable', key, ...remote]), /is disabled/);
    assert.match(await space.ok(['clients', 'show', key]), /status:\s+disabled/);
    await space.ok(['clients', 'enable', key, ...remote]);
    await space.ok(['clients', 'update', key, '--requests-per-minute', '600', ...remote]);
    assert.match(await space.ok(['clients', 'show', key]), /requests per minute:\s+600\n/);
    const added = JSON.parse(
      await space.ok(['clients', 'add', '--name', 'Remote one', '--json', ...remote]),
    ) as { key: string; secret: string };
    assert.ok(added.secret.length > 0);
    assert.match(await space.ok(['clients', 'list']), /Remote one/);
  });

  it('rotates with an overlap, shows it as the local command does, and ends it', async () => {
    const added = JSON.parse(
      await space.ok(['clients', 'add', '--name', 'Rotated remotely', '--json']),
    ) as { key: string };
    const rotated = await space.ok(['clients', 'rotate', added.key, '--overlap', '1h', ...remote]);
    assert.match(rotated, /The previous secret is still accepted until /);
    const shown = await space.ok(['clients', 'show', added.key]);
    assert.match(shown, /previous secret:\s+accepted until/);
    assert.equal(await space.ok(['clients', 'show', added.key, ...remote]), shown);
    assert.match(
      await space.ok(['clients', 'end-overlap', added.key, ...remote]),
      /previous secret is refused from now on/,
    );
    assert.doesNotMatch(await space.ok(['clients', 'show', added.key]), /previous secret/);
  });

  it("prints a client's usage byte for byte as the local command does", async () => {
    const [first] = JSON.parse(await space.ok(['clients', 'list', '--json'])) as { key: string }[];
    for (const extra of [[], ['--json'], ['--days', '7']]) {
      const args = ['clients', 'usage', first!.key, ...extra];
      assert.equal(await space.ok([...args, ...remote]), await space.ok(args));
    }
    const unknown = await space.run(['clients', 'usage', 'no-such-client', ...remote]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /404/);
    for (const days of ['0', '91', '999', '-1', 'x']) {
      const answer = await fetch(`${world.url}/admin/clients/${first!.key}/usage?days=${days}`, {
        headers: { authorization: `Bearer ${world.tokens.auditor}` },
      });
      assert.equal(answer.status, 400, days);
    }
  });

  it('takes the server and token from LATCHKEY_SERVER and LATCHKEY_ADMIN_API_TOKEN', async () => {
    const far = await space.run(['clients', 'list'], {
      env: { LATCHKEY_SERVER: world.url, LATCHKEY_ADMIN_API_TOKEN: world.tokens.auditor },
    });
    assert.equal(far.code, 0, far.stderr);
    assert.equal(far.stdout, (await space.run(['clients', 'list'])).stdout);
  });

  it('prints a refusal of the API as one line with its status and exits 1', async () => {
    const support = ['--server', world.url, '--admin-token', world.tokens.support];
    const refused = await space.run(['clients', 'add', '--name', 'x', ...support]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^latchkey: http:\/\/127\.0\.0\.1:\d+: 403 Forbidden: .+\n$/);
    const wrong = await space.run([
      'clients',
      'list',
      '--server',
      world.url,
      '--admin-token',
      'lka_nope',
    ]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^latchkey: \S+: 401 Unauthorized: .+\n$/);
  });

  it('says in one line when the server cannot be reached', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const down = await space.run([
      'clients',
      'list',
      '--server',
      `http://127.0.0.1:${port}`,
      '--admin-token',
      'x',
    ]);
    assert.equal(down.code, 1);
    assert.match(
      down.stderr,
      /^latchkey: http:\/\/127\.0\.0\.1:\d+: cannot be reached \(.*ECONNREFUSED.*\)\n$/,
    );
    const bad = await space.run(['clients', 'list', '--server', 'not a url', '--admin-token', 'x']);
    assert.equal(bad.code, 2);
  });

  it('saves a profile readable by its owner only and uses it with --profile', async () => {
    const env = { XDG_CONFIG_HOME: join(space.dir, 'config') };
    const saved = await space.run(
      ['login', '--server', world.url, '--admin-token', world.tokens.auditor, '--profile', 'prod'],
      { env },
    );
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /as auditor \(auditor\)/);
    const file = join(space.dir, 'config', 'latchkey', 'profiles.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const far = await space.run(['clients', 'list', '--profile', 'prod'], { env });
    assert.equal(far.code, 0, far.stderr);
    assert.equal(far.stdout, (await space.run(['clients', 'list'])).stdout);
    const missing = await space.run(['clients', 'list', '--profile', 'staging'], { env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no profile "staging"/);
    const refused = await space.run(
      ['login', '--server', world.url, '--admin-token', 'lka_wrong', '--profile', 'bad'],
      { env },
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /401/);
  });
});
