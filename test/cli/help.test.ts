import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

const commands = [
  ['serve'],
  ['clients'],
  ['clients', 'add'],
  ['clients', 'list'],
  ['clients', 'show'],
  ['clients', 'remove'],
  ['clients', 'rotate-secret'],
  ['clients', 'verify'],
  ['users'],
  ['users', 'add'],
  ['users', 'list'],
  ['users', 'remove'],
  ['users', 'passwd'],
  ['tokens'],
  ['tokens', 'issue'],
  ['tokens', 'list'],
  ['tokens', 'revoke'],
  ['authorize'],
  ['request'],
  ['migrate'],
];

describe('latchkey --help (every command has --help)', { concurrency: true }, () => {
  it('lists every command', async () => {
    const result = await space.run(['--help']);
    assert.equal(result.code, 0);
    for (const name of ['serve', 'clients', 'users', 'tokens', 'authorize', 'request', 'migrate']) {
      assert.match(result.stdout, new RegExp(`^  ${name}\\b`, 'm'));
    }
  });

  for (const command of commands) {
    it(`explains \`latchkey ${command.join(' ')}\` and exits 0`, async () => {
      const result = await space.run([...command, '--help']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^Usage: latchkey ${command.join(' ')}\\b`));
    });
  }
});

describe('latchkey usage errors (exit 2)', () => {
  it('refuses an unknown command with exit code 2 and a message', async () => {
    const result = await space.run(['frobnicate']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command 'frobnicate'/);
  });

  it('refuses an unknown option with exit code 2 and a message', async () => {
    const result = await space.run(['clients', 'list', '--colour']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown option '--colour'/);
  });

  it('refuses a command group without its subcommand with exit code 2', async () => {
    const result = await space.run(['tokens']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Usage: latchkey tokens/);
  });

  it('refuses a missing argument with exit code 2 and a message', async () => {
    const result = await space.run(['clients', 'show']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /missing required argument 'key'/);
  });
});
