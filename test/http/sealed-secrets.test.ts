// A stored secret that cannot be opened at request time (its key taken out of the running
// server's keyring, or its row altered) is a store outage, over HTTP, on SQLite (a real file)
// and PostgreSQL: the OAuth endpoint answers 503 temporarily_unavailable with Retry-After and
// the page 503 with Retry-After, fail closed, never a 500; the log has one error line naming
// the key id and no secret. The start-up refusal is in test/cli/serve-keys.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { requestTemporaryCredentials } from '../../src/client/index.ts';
import { createPostgresStore, createSqliteStore, type Store } from '../../src/store/index.ts';
import { newKey } from '../../src/store/key-file.ts';
import type { Keyring, SealingKey } from '../../src/store/sealing.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import { authorizePath, BASE, injectFetch, startWeb } from '../web/support.ts';

const postgresSkip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const directory = mkdtempSync(join(tmpdir(), 'latchkey-sealed-'));
after(() => rmSync(directory, { recursive: true, force: true }));

/** A keyring an operator can take a key out of while the server runs. */
function changingKeyring(first: SealingKey): Keyring & { replace(key: SealingKey): void } {
  let key = first;
  return {
    current: () => key,
    find: (id) => (id === key.id ? key : undefined),
    replace(next) {
      key = next;
    },
  };
}

function memoryLog(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
}

function describeUnreadable(
  label: string,
  makeStore: (keyring: Keyring) => Promise<Store>,
  skip?: string | false,
) {
  describe(`A secret that cannot be opened at request time (${label})`, { skip }, () => {
    it('answers the OAuth endpoint and the page with 503 and Retry-After, and logs an error without any secret', async () => {
      const sealing = newKey();
      const keyring = changingKeyring(sealing);
      const lines: string[] = [];
      const world = await startWeb({
        store: await makeStore(keyring),
        logger: { level: 'info', stream: memoryLog(lines) },
      });
      try {
        const client = await world.client();
        const temporary = await world.temporary(client);
        // The key that sealed the client and the temporary credential leaves the keyring.
        keyring.replace(newKey());

        const response = await requestTemporaryCredentials(`${BASE}/oauth/request_token`, {
          client: { key: client.key, secret: client.secret },
          callback: 'https://printer.example/callback',
          fetch: injectFetch(world.app),
        });
        assert.equal(response.status, 503);
        assert.equal(response.headers.get('retry-after'), '5');
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(
          new URLSearchParams(await response.text()).get('oauth_problem'),
          'temporarily_unavailable',
        );

        const page = await world.browser().get(authorizePath(temporary));
        assert.equal(page.statusCode, 503);
        assert.equal(page.headers['retry-after'], '5');
        assert.match(page.body, /briefly unavailable/);

        const unreadable = lines
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((line) => line['event'] === 'secrets.unreadable');
        assert.equal(unreadable.length, 2, 'one error line per request');
        for (const line of unreadable) {
          assert.equal(line['level'], 50, 'logged at error level');
          assert.match(String(line['err']), new RegExp(`key ${sealing.id}`));
        }
        const log = lines.join('\n');
        for (const secret of [client.secret, temporary.secret, sealing.key.toString('base64')]) {
          assert.equal(log.includes(secret), false, 'a secret is in the log');
        }
      } finally {
        await world.close();
      }
    });
  });
}

describeUnreadable('SQLite file', async (keyring) =>
  createSqliteStore({ path: join(directory, 'latchkey.db'), keyring }),
);

const schemas: string[] = [];
after(async () => {
  for (const schema of schemas) await dropSchema(schema);
});
describeUnreadable(
  'PostgreSQL',
  async (keyring) => {
    const schema = runName('schema');
    schemas.push(schema);
    return createPostgresStore({ connectionString: postgresUrl, schema, keyring });
  },
  postgresSkip,
);
