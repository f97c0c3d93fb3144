import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

/** Checks a password the way the sign-in page does, on the same database file. */
async function signsIn(username: string, password: string): Promise<boolean> {
  const store = createSqliteStore({ path: space.database });
  try {
    return (await createProvider({ store }).owners.authenticate(username, password)) !== undefined;
  } finally {
    await store.close();
  }
}

describe('latchkey users (resource owner accounts)', () => {
  it('creates an account with the password read from stdin', async () => {
    const stdout = await space.ok(['users', 'add', '--username', 'alice', '--password-stdin'], {
      input: 'correct horse battery\n',
    });
    assert.match(stdout, /Created user alice/);
    assert.equal(await signsIn('alice', 'correct horse battery'), true);
  });

  it('lists the accounts', async () => {
    await space.ok(['users', 'add', '--username', 'bob', '--password-stdin'], {
      input: 'bob-password-1',
    });
    const users = JSON.parse(await space.ok(['users', 'list', '--json'])) as { username: string }[];
    assert.ok(users.some((user) => user.username === 'bob'));
    assert.match(await space.ok(['users', 'list']), /^bob +local +\S+ +bob +\S+ +\S+$/m);
  });

  it('changes a password with passwd: the new one signs in, the old one no longer', async () => {
    await space.ok(['users', 'add', '--username', 'carol', '--password-stdin'], {
      input: 'old-password-1',
    });
    await space.ok(['users', 'passwd', 'carol', '--password-stdin'], { input: 'new-password-2\n' });
    assert.equal(await signsIn('carol', 'new-password-2'), true);
    assert.equal(await signsIn('carol', 'old-password-1'), false);
  });

  it('removes an account', async () => {
    await space.ok(['users', 'add', '--username', 'dave', '--password', 'dave-password-1']);
    await space.ok(['users', 'remove', 'dave']);
    const users = JSON.parse(await space.ok(['users', 'list', '--json'])) as { username: string }[];
    assert.ok(!users.some((user) => user.username === 'dave'));
  });

  it('refuses a short password, naming --password, with exit code 1', async () => {
    const result = await space.run(['users', 'add', '--username', 'erin', '--password-stdin'], {
      input: 'short',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: --password: A password is 8 to 1024 characters\./m);
  });

  it('refuses a taken username, naming --username, with exit code 1', async () => {
    const result = await space.run(['users', 'add', '--username', 'alice', '--password-stdin'], {
      input: 'another-password',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: --username: The username alice is taken\./m);
  });

  it('refuses an account without a password source with exit code 2', async () => {
    const result = await space.run(['users', 'add', '--username', 'frank']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--password-stdin/);
  });

  it('refuses --password together with --password-stdin with exit code 2', async () => {
    const result = await space.run(
      ['users', 'add', '--username', 'frank', '--password', 'x-password', '--password-stdin'],
      { input: 'y-password' },
    );
    assert.equal(result.code, 2);
  });

  it('reports an unknown user to passwd with exit code 1', async () => {
    const result = await space.run(['users', 'passwd', 'nobody', '--password-stdin'], {
      input: 'whatever-password',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /No user named nobody/);
  });
});
