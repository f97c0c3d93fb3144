// openStore takes the sealing keys as `latchkey serve` does (docs/middleware.md "Sealed
// secrets"): `secretKey` in the forms of LATCHKEY_SECRET_KEY, and that variable by default.
// Middleware on a PostgreSQL database sealed under a key starts and verifies with it, and is
// refused (MissingSealingKeyError) without it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import {
  createNodeVerifier,
  createProvider,
  createSigningFetch,
  MissingSealingKeyError,
  openStore,
  type Store,
} from '../../src/index.ts';
import { requirement } from '../support/requirements.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from './support-services.ts';

const skip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());

/** Middleware on `store`: one signed GET, the owner's subject it was told, then all closed. */
async function verifiedSubject(
  store: Store,
  client: { key: string; secret: string },
  token: { token: string; secret: string },
): Promise<string> {
  const provider = createProvider({ store });
  const verify = createNodeVerifier({ provider });
  const server = http.createServer(async (request, response) => {
    const verified = await verify(request, response);
    if (verified === undefined) return;
    response.end(verified.caller.owner?.subject ?? '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const port = (server.address() as AddressInfo).port;
    const signed = createSigningFetch({
      client,
      token: { token: token.token, secret: token.secret },
    });
    const response = await signed(`http://127.0.0.1:${port}/photos`);
    assert.equal(response.status, 200, await response.clone().text());
    return await response.text();
  } finally {
    server.closeAllConnections();
    server.close();
    await provider.close();
    await store.close();
  }
}

describe('openStore takes the sealing key (secretKey, LATCHKEY_SECRET_KEY)', { skip }, () => {
  const schema = runName('schema');
  after(() => dropSchema(schema));
  // Two keys as LATCHKEY_SECRET_KEY spells them: base64 first (sealing), base64url after.
  const sealing = randomBytes(32).toString('base64');
  const older = randomBytes(32).toString('base64url');
  const secretKey = `${sealing}, ${older}`;

  it('seals under secretKey, refuses the database without it, verifies with it or the variable', async () => {
    const store = await openStore(postgresUrl, { schema, secretKey });
    const provider = createProvider({ store });
    const owner = await provider.owners.create('alice', 'correct horse battery');
    const client = await provider.clients.register({ name: 'Sealed' });
    const token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    await provider.close();
    await store.close();

    const previous = process.env.LATCHKEY_SECRET_KEY;
    delete process.env.LATCHKEY_SECRET_KEY;
    try {
      await assert.rejects(
        openStore(postgresUrl, { schema }).then((opened) => opened.close()),
        MissingSealingKeyError,
      );
      // Given as an option.
      const subject = await verifiedSubject(
        await openStore(postgresUrl, { schema, secretKey }),
        client,
        token,
      );
      assert.equal(subject, owner.subject);
      // By default from the environment, as `latchkey serve` takes it.
      process.env.LATCHKEY_SECRET_KEY = secretKey;
      assert.equal(
        await verifiedSubject(await openStore(postgresUrl, { schema }), client, token),
        owner.subject,
      );
      // A value that is not a key is refused with the reason, never opened in clear.
      await assert.rejects(openStore(postgresUrl, { schema, secretKey: 'not-a-key' }), {
        message: /32 random bytes in base64/,
      });
    } finally {
      if (previous === undefined) delete process.env.LATCHKEY_SECRET_KEY;
      else process.env.LATCHKEY_SECRET_KEY = previous;
    }
  });
});
