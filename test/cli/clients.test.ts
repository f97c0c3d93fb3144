import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { workspace } from './run-cli.ts';

interface ClientJson {
  key: string;
  secret?: string;
  name: string;
  callbacks: string[];
  verified: boolean;
  publicKey: string | null;
}

const space = workspace();
after(() => space.remove());

async function addClient(...extra: string[]): Promise<ClientJson> {
  return JSON.parse(await space.ok(['clients', 'add', '--json', ...extra])) as ClientJson;
}

describe('latchkey clients add (RFC 5849 §1.1: client credentials established before any request)', () => {
  it('registers a client and prints its key and secret once', async () => {
    const stdout = await space.ok(['clients', 'add', '--name', 'Photo printer']);
    assert.match(stdout, /^key: +\S+$/m);
    assert.match(stdout, /^secret: +[A-Za-z0-9_-]{22,}$/m);
    assert.match(stdout, /shown this once/);
  });

  it('keeps the callbacks, description and website given', async () => {
    const client = await addClient(
      '--name',
      'Printer',
      '--callback',
      'https://a.example/cb',
      '--callback',
      'myapp://done',
      '--website',
      'https://a.example',
      '--description',
      'Prints photos',
    );
    const shown = await space.ok(['clients', 'show', client.key]);
    assert.match(shown, /callbacks: +https:\/\/a\.example\/cb myapp:\/\/done/);
    assert.match(shown, /website: +https:\/\/a\.example/);
    assert.match(shown, /description: +Prints photos/);
  });

  it('takes an existing key and secret to migrate credentials from another provider', async () => {
    const client = await addClient(
      '--name',
      'Old',
      '--key',
      'legacy-key',
      '--secret',
      'legacy-secret',
    );
    assert.equal(client.key, 'legacy-key');
    assert.equal(client.secret, 'legacy-secret');
  });

  it('stores a public key read from a file, given with --public-key or --rsa-public-key', async () => {
    const file = fileURLToPath(new URL('../fixtures/rsa-public.pem', import.meta.url));
    for (const flag of ['--public-key', '--rsa-public-key']) {
      const client = await addClient('--name', 'RSA', flag, file, '--signature-method', 'RSA-SHA1');
      assert.match(client.publicKey ?? '', /BEGIN PUBLIC KEY/, flag);
      assert.equal(client.secret, '', 'RSA only: no shared secret');
    }
  });

  it('refuses --public-key with --rsa-public-key (exit code 2)', async () => {
    const file = fileURLToPath(new URL('../fixtures/rsa-public.pem', import.meta.url));
    const result = await space.run([
      'clients',
      'add',
      '--name',
      'Both',
      '--public-key',
      file,
      '--rsa-public-key',
      file,
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--public-key and --rsa-public-key do not go together/);
  });

  it('refuses a callback that is not an absolute URI, naming --callback, with exit code 1', async () => {
    const result = await space.run(['clients', 'add', '--name', 'Bad', '--callback', 'not a uri']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: --callback: /);
  });

  it('refuses an unknown signature method, naming --signature-method, with exit code 1', async () => {
    const result = await space.run([
      'clients',
      'add',
      '--name',
      'Bad',
      '--signature-method',
      'MD5',
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: --signature-method: Unknown signature method: MD5/);
  });

  it('refuses a missing --name with exit code 2', async () => {
    const result = await space.run(['clients', 'add']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /required option '--name <name>' not specified/);
  });

  it('refuses --secret without --key with exit code 2', async () => {
    const result = await space.run(['clients', 'add', '--name', 'X', '--secret', 'abc']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--secret goes with --key/);
  });
});

describe('latchkey clients list, show, remove, rotate-secret, verify', () => {
  let client: ClientJson;
  before(async () => {
    client = await addClient('--name', 'Listed app');
  });

  it('lists the client without its secret', async () => {
    const stdout = await space.ok(['clients', 'list']);
    assert.match(stdout, new RegExp(`^${client.key} +Listed app +no\\b`, 'm'));
    assert.ok(!stdout.includes(client.secret!));
  });

  it('lists as JSON without secrets', async () => {
    const list = JSON.parse(await space.ok(['clients', 'list', '--json'])) as ClientJson[];
    const found = list.find((c) => c.key === client.key);
    assert.equal(found?.name, 'Listed app');
    assert.equal(found?.secret, undefined);
  });

  it('shows one client without its secret', async () => {
    const stdout = await space.ok(['clients', 'show', client.key]);
    assert.match(stdout, /^name: +Listed app$/m);
    assert.ok(!stdout.includes(client.secret!));
  });

  it('takes a migrated key that starts with - after --', async () => {
    await addClient('--name', 'Dash', '--key', '-dash-key', '--secret', 'dash-secret');
    assert.match(await space.ok(['clients', 'show', '--', '-dash-key']), /^name: +Dash$/m);
  });

  it('reports an unknown client key with exit code 1 and a message', async () => {
    const result = await space.run(['clients', 'show', 'no-such-client']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'latchkey: No client with key no-such-client.\n');
  });

  it('rotates the secret: prints a new one, different from the old', async () => {
    const other = await addClient('--name', 'Rotating');
    const rotated = JSON.parse(
      await space.ok(['clients', 'rotate-secret', other.key, '--json']),
    ) as ClientJson;
    assert.equal(rotated.key, other.key);
    assert.ok(rotated.secret !== undefined && rotated.secret.length >= 22);
    assert.notEqual(rotated.secret, other.secret);
  });

  it('marks a client verified and unverified', async () => {
    const other = await addClient('--name', 'Verified app');
    await space.ok(['clients', 'verify', other.key]);
    const verified = JSON.parse(
      await space.ok(['clients', 'show', other.key, '--json']),
    ) as ClientJson;
    assert.equal(verified.verified, true);
    await space.ok(['clients', 'verify', other.key, '--unverify']);
    const unverified = JSON.parse(
      await space.ok(['clients', 'show', other.key, '--json']),
    ) as ClientJson;
    assert.equal(unverified.verified, false);
  });

  it('removes a client, after which it is unknown', async () => {
    const other = await addClient('--name', 'Removed app');
    await space.ok(['clients', 'remove', other.key]);
    const result = await space.run(['clients', 'show', other.key]);
    assert.equal(result.code, 1);
  });

  it('refuses to remove an unknown client with exit code 1', async () => {
    const result = await space.run(['clients', 'remove', 'no-such-client']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /No client with key no-such-client/);
  });
});
