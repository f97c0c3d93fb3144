import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { fileKeyring } from '../../src/store/key-file.ts';
import { workspace } from './run-cli.ts';

interface IssuedJson {
  token: string;
  secret: string;
  client: string;
  user: string;
  scope: string;
  expiresAt: string | null;
}

interface ListedJson {
  token: string;
  client: string;
  user: string;
  status: string;
  secret?: string;
  deviceHint: string | null;
  device: string | null;
}

const space = workspace();
let clientKey: string;

before(async () => {
  clientKey = (
    JSON.parse(await space.ok(['clients', 'add', '--name', 'Tokens', '--json'])) as {
      key: string;
    }
  ).key;
  for (const username of ['alice', 'bob']) {
    await space.ok(['users', 'add', '--username', username, '--password-stdin'], {
      input: `${username}-password`,
    });
  }
});
after(() => space.remove());

async function issue(...extra: string[]): Promise<IssuedJson> {
  return JSON.parse(
    await space.ok(['tokens', 'issue', '--client', clientKey, '--json', ...extra]),
  ) as IssuedJson;
}

async function list(...extra: string[]): Promise<ListedJson[]> {
  return JSON.parse(await space.ok(['tokens', 'list', '--json', ...extra])) as ListedJson[];
}

describe('latchkey tokens issue (token credentials an operator provisions)', () => {
  it('issues token credentials and prints the token and its secret once', async () => {
    const stdout = await space.ok(['tokens', 'issue', '--client', clientKey, '--user', 'alice']);
    assert.match(stdout, /^token: +\S+$/m);
    assert.match(stdout, /^secret: +\S{22,}$/m);
    assert.match(stdout, /shown this once/);
  });

  it('carries the scope and lifetime asked for', async () => {
    const issued = await issue('--user', 'alice', '--scope', 'read', '--lifetime', '3600');
    assert.equal(issued.scope, 'read');
    assert.ok(issued.expiresAt !== null);
    const hours = (Date.parse(issued.expiresAt) - Date.now()) / 3_600_000;
    assert.ok(hours > 0.9 && hours <= 1, `expires in ${hours} h`);
  });

  it('takes an existing token and secret to migrate credentials', async () => {
    const issued = await issue('--user', 'bob', '--token', 'legacy-token', '--secret', 'legacy-s');
    assert.equal(issued.token, 'legacy-token');
    assert.equal(issued.secret, 'legacy-s');
  });

  it('reports an unknown client with exit code 1 and a message', async () => {
    const result = await space.run(['tokens', 'issue', '--client', 'nope', '--user', 'alice']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'latchkey: No client with key nope.\n');
  });

  it('refuses an unknown scope, naming --scope, with exit code 1', async () => {
    const result = await space.run([
      ...['tokens', 'issue', '--client', clientKey, '--user', 'alice', '--scope', 'admin'],
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: --scope: Unknown scope: admin/);
  });

  it('refuses a lifetime that is not a number of seconds with exit code 2', async () => {
    const result = await space.run([
      ...['tokens', 'issue', '--client', clientKey, '--user', 'alice', '--lifetime', 'soon'],
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--lifetime.*whole number of seconds/);
  });
});

describe('latchkey tokens list and revoke (RFC 5849 §2.3: the owner may revoke)', () => {
  it('lists tokens without their secrets, filtered by user', async () => {
    const issued = await issue('--user', 'bob');
    const bobs = await list('--user', 'bob');
    assert.ok(bobs.some((token) => token.token === issued.token && token.status === 'active'));
    assert.ok(bobs.every((token) => token.user === 'bob' && token.secret === undefined));
    assert.ok(!(await space.ok(['tokens', 'list'])).includes(issued.secret));
  });

  it('lists tokens filtered by client', async () => {
    const issued = await issue('--user', 'alice');
    const listed = await list('--client', clientKey);
    assert.ok(listed.some((token) => token.token === issued.token));
    assert.ok(listed.every((token) => token.client === clientKey));
  });

  it('revokes a token, which then lists as revoked', async () => {
    const issued = await issue('--user', 'alice');
    assert.match(await space.ok(['tokens', 'revoke', issued.token]), /Revoked token/);
    const listed = await list('--user', 'alice');
    assert.equal(listed.find((token) => token.token === issued.token)?.status, 'revoked');
  });

  it('reports an unknown token to revoke with exit code 1', async () => {
    const result = await space.run(['tokens', 'revoke', 'no-such-token']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /No such token/);
  });

  it('shows the device each token was first used from: DEVICE in the table, deviceHint in JSON', async () => {
    const used = await issue('--user', 'alice');
    const unused = await issue('--user', 'alice');
    // What the server's batched last use writes after the token's first verified request.
    const store = createSqliteStore({
      path: space.database,
      keyring: fileKeyring(join(dirname(space.database), 'latchkey.key')),
    });
    try {
      await store.tokenCredentials.touch(
        new Map([[used.token, Date.now()]]),
        new Map([[used.token, 'curl/8.5.0']]),
      );
    } finally {
      await store.close();
    }
    const listed = await list('--user', 'alice');
    const of = (token: string) => listed.find((row) => row.token === token);
    assert.equal(of(used.token)?.deviceHint, 'curl/8.5.0');
    assert.equal(of(used.token)?.device, 'curl/8.5');
    assert.equal(of(unused.token)?.deviceHint, null);
    const lines = (await space.ok(['tokens', 'list', '--user', 'alice'])).split('\n');
    assert.match(lines[0] ?? '', /LAST USED\s+DEVICE$/);
    assert.match(lines.find((line) => line.startsWith(used.token)) ?? '', /\s curl\/8\.5$/);
    assert.match(lines.find((line) => line.startsWith(unused.token)) ?? '', /\s-$/);
  });

  it('revokes one token by its public value, leaving the user’s other tokens of the client active', async () => {
    const first = await issue('--user', 'bob');
    const second = await issue('--user', 'bob');
    assert.match(await space.ok(['tokens', 'revoke', first.token]), /Revoked token/);
    const listed = await list('--user', 'bob', '--client', clientKey);
    assert.equal(listed.find((row) => row.token === first.token)?.status, 'revoked');
    assert.equal(listed.find((row) => row.token === second.token)?.status, 'active');
  });
});
