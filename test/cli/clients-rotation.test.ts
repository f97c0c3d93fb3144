// `latchkey clients rotate-secret --overlap` and `end-overlap` on the database a running server
// reads: both secrets sign during the overlap, then only the new one, the old one told why;
// `clients show` names the overlap; the overlap is refused beyond 30 days or misspelled. The
// server's clock is moved, never waited for.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { fileKeyring } from '../../src/store/key-file.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { workspace } from './run-cli.ts';

const HOUR = 3_600_000;

describe('latchkey clients rotate-secret --overlap', () => {
  const space = workspace();
  let server: TestServer;
  let offset = 0;
  const now = () => Date.now() + offset;
  before(async () => {
    await space.ok(['migrate']);
    // The server reads the secrets the CLI sealed with the key file beside the database.
    const keyring = fileKeyring(join(dirname(space.database), 'latchkey.key'));
    server = await startServer({ path: space.database, keyring, now });
  });
  after(async () => {
    await server?.close();
    space.remove();
  });

  async function add(name: string) {
    return JSON.parse(await space.ok(['clients', 'add', '--name', name, '--json'])) as {
      key: string;
      secret: string;
    };
  }

  async function me(key: string, secret: string) {
    const signed = signRequest({
      method: 'GET',
      url: `${server.url}/api/me`,
      client: { key, secret },
      timestamp: Math.floor(now() / 1000),
    });
    const response = await fetch(signed.url, { headers: signed.headers });
    const advice = new URLSearchParams(await response.text()).get('oauth_problem_advice');
    return { status: response.status, advice: advice ?? '' };
  }

  it('accepts both secrets for the overlap, then only the new one', async () => {
    const client = await add('Rolling');
    const rotated = await space.ok(['clients', 'rotate', client.key, '--overlap', '24h']);
    assert.match(rotated, /The previous secret is still accepted until \d{4}-\d\d-\d\dT/);
    const secret = /^secret:\s+(\S+)$/m.exec(rotated)?.[1] ?? assert.fail(rotated);
    assert.equal((await me(client.key, client.secret)).status, 200);
    assert.equal((await me(client.key, secret)).status, 200);
    assert.match(
      await space.ok(['clients', 'show', client.key]),
      /previous secret:\s+accepted until \S+ \(replaced \S+, last used (never|\S+)\)/,
    );

    offset += 24 * HOUR;
    const refused = await me(client.key, client.secret);
    assert.equal(refused.status, 401);
    assert.match(refused.advice, /previous secret/);
    assert.equal((await me(client.key, secret)).status, 200);
  });

  it('prints the end of the overlap in JSON, and ends it early with end-overlap', async () => {
    const client = await add('Leaked');
    const rotated = JSON.parse(
      await space.ok(['clients', 'rotate-secret', client.key, '--overlap', '7d', '--json']),
    ) as { secret: string; previousSecretUntil: string };
    assert.equal(typeof rotated.previousSecretUntil, 'string');
    assert.equal((await me(client.key, client.secret)).status, 200);
    assert.match(
      await space.ok(['clients', 'end-overlap', client.key]),
      /previous secret is refused from now on/,
    );
    assert.equal((await me(client.key, client.secret)).status, 401);
    assert.equal((await me(client.key, rotated.secret)).status, 200);
    assert.match(await space.ok(['clients', 'end-overlap', client.key]), /no overlap running/);
  });

  it('refuses an overlap beyond 30 days or misspelled, and --overlap without a new key', async () => {
    const client = await add('Refused');
    for (const overlap of ['31d', 'soon', '-1h', '24']) {
      const result = await space.run(['clients', 'rotate', client.key, '--overlap', overlap]);
      assert.notEqual(result.code, 0, overlap);
      assert.match(result.stderr, /overlap/i);
    }
    const update = await space.run([
      'clients',
      'update',
      client.key,
      '--name',
      'Renamed',
      '--overlap',
      '1h',
    ]);
    assert.equal(update.code, 2);
    assert.match(update.stderr, /--overlap goes with --public-key/);
    assert.equal((await me(client.key, client.secret)).status, 200);
  });
});
