import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { workspace } from './run-cli.ts';

interface ClientJson {
  key: string;
  secret?: string;
  name: string;
  description: string;
  website: string | null;
  callbacks: string[];
  signatureMethods: string[];
  publicKey: string | null;
  constrainedDevice: boolean;
  disabled: boolean;
}

const space = workspace();
after(() => space.remove());
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

async function show(key: string): Promise<ClientJson> {
  return JSON.parse(await space.ok(['clients', 'show', key, '--json'])) as ClientJson;
}

describe('latchkey clients update', () => {
  let client: ClientJson;
  before(async () => {
    client = JSON.parse(
      await space.ok([
        'clients',
        'add',
        '--json',
        '--name',
        'Printer',
        '--callback',
        'https://old.example/cb',
        '--website',
        'https://old.example',
      ]),
    ) as ClientJson;
  });

  it('changes the name, description and website, and replaces the callbacks', async () => {
    const stdout = await space.ok([
      'clients',
      'update',
      client.key,
      '--name',
      'Photo printer',
      '--description',
      'Prints photos',
      '--website',
      'https://new.example',
      '--callback',
      'https://new.example/cb',
      '--callback',
      'myapp://done',
    ]);
    assert.match(stdout, /Updated client .*: name, description, website, callbacks\./);
    const shown = await show(client.key);
    assert.equal(shown.name, 'Photo printer');
    assert.equal(shown.description, 'Prints photos');
    assert.equal(shown.website, 'https://new.example');
    assert.deepEqual(shown.callbacks, ['https://new.example/cb', 'myapp://done']);
  });

  it('clears the callbacks and the website, and restricts then frees the methods', async () => {
    await space.ok(['clients', 'update', client.key, '--clear-callbacks', '--website', '']);
    await space.ok(['clients', 'update', client.key, '--signature-method', 'HMAC-SHA256']);
    let shown = await show(client.key);
    assert.deepEqual(shown.callbacks, []);
    assert.equal(shown.website, null);
    assert.deepEqual(shown.signatureMethods, ['HMAC-SHA256']);
    await space.ok(['clients', 'update', client.key, '--all-signature-methods']);
    shown = await show(client.key);
    assert.deepEqual(shown.signatureMethods, []);
  });

  it('replaces the RSA key with an X.509 certificate, then removes it', async () => {
    await space.ok([
      'clients',
      'update',
      client.key,
      '--public-key',
      fixture('rsa-certificate.pem'),
    ]);
    assert.match((await show(client.key)).publicKey ?? '', /BEGIN CERTIFICATE/);
    await space.ok(['clients', 'update', client.key, '--remove-public-key']);
    assert.equal((await show(client.key)).publicKey, null);
  });

  it('still takes the former names --rsa-public-key and --remove-rsa-public-key', async () => {
    await space.ok([
      'clients',
      'update',
      client.key,
      '--rsa-public-key',
      fixture('rsa-public.pem'),
    ]);
    assert.match((await show(client.key)).publicKey ?? '', /BEGIN PUBLIC KEY/);
    await space.ok(['clients', 'update', client.key, '--remove-rsa-public-key']);
    assert.equal((await show(client.key)).publicKey, null);
  });

  it('refuses a key and its removal together (exit code 2)', async () => {
    const result = await space.run([
      'clients',
      'update',
      client.key,
      '--rsa-public-key',
      fixture('rsa-public.pem'),
      '--remove-public-key',
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--public-key and --remove-public-key do not go together/);
  });

  it('refuses a private key file, naming --public-key, with exit code 1', async () => {
    const result = await space.run([
      'clients',
      'update',
      client.key,
      '--public-key',
      fixture('rsa-private.pem'),
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: --public-key: That is a private key/);
  });

  it('turns the constrained-device mark on and off', async () => {
    await space.ok(['clients', 'update', client.key, '--constrained-device']);
    assert.equal((await show(client.key)).constrainedDevice, true);
    await space.ok(['clients', 'update', client.key, '--no-constrained-device']);
    assert.equal((await show(client.key)).constrainedDevice, false);
  });

  it('refuses an update with nothing to change, or with options that contradict, with exit code 2', async () => {
    const none = await space.run(['clients', 'update', client.key]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /nothing to change/);
    const both = await space.run([
      'clients',
      'update',
      client.key,
      '--callback',
      'https://a.example/cb',
      '--clear-callbacks',
    ]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /do not go together/);
  });

  it('sets the client’s own rate limits, and returns them to the server’s default', async () => {
    await space.ok([
      'clients',
      'update',
      client.key,
      '--requests-per-minute',
      '600',
      '--failures-per-minute',
      '20',
    ]);
    const limited = (await show(client.key)) as ClientJson & Record<string, unknown>;
    assert.equal(limited['requestsPerMinute'], 600);
    assert.equal(limited['failuresPerMinute'], 20);
    assert.match(await space.ok(['clients', 'show', client.key]), /^requests per minute: +600/m);
    await space.ok(['clients', 'update', client.key, '--requests-per-minute', 'default']);
    const back = (await show(client.key)) as ClientJson & Record<string, unknown>;
    assert.equal(back['requestsPerMinute'], null);
    assert.equal(back['failuresPerMinute'], 20);
    const zero = await space.run(['clients', 'update', client.key, '--requests-per-minute', '0']);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /rate limit/);
  });

  it('reports an unknown client with exit code 1', async () => {
    const result = await space.run(['clients', 'update', 'no-such-client', '--name', 'X']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'latchkey: No client with key no-such-client.\n');
  });
});

describe('latchkey clients disable, enable', () => {
  it('disables a client, shows it, and enables it again', async () => {
    const client = JSON.parse(
      await space.ok(['clients', 'add', '--json', '--name', 'Switchable']),
    ) as ClientJson;
    assert.match(
      await space.ok(['clients', 'disable', client.key]),
      /is disabled: its requests and tokens are refused/,
    );
    assert.equal((await show(client.key)).disabled, true);
    assert.match(await space.ok(['clients', 'show', client.key]), /^status: +disabled/m);
    assert.match(
      await space.ok(['clients', 'list']),
      new RegExp(`^${client.key} +Switchable +no +disabled\\b`, 'm'),
    );
    await space.ok(['clients', 'enable', client.key]);
    assert.equal((await show(client.key)).disabled, false);
  });

  it('reports an unknown client with exit code 1', async () => {
    const result = await space.run(['clients', 'disable', 'no-such-client']);
    assert.equal(result.code, 1);
  });
});
