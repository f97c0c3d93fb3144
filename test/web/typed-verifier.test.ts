// A typed code (40 bits, for a constrained device, §2.2) is stored as a digest keyed with the
// sealing key: a reader of the database alone cannot try the codes against it. Codes stored
// as plain SHA-256 before keyed digests (pending at an upgrade) are still exchanged. Over real
// HTTP on a SQLite file with a key.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  processTemporaryCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import type { TokenCredentials } from '../../src/client/index.ts';
import { fixedKeyring, newKey } from '../../src/store/key-file.ts';
import type { Client, Owner } from '../../src/store/index.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

describe('Typed verifier codes at rest', () => {
  const key = newKey();
  let server: TestServer;
  let client: Client;
  let owner: Owner;
  before(async () => {
    server = await startServer({ keyring: fixedKeyring({ current: key, keys: [key] }) });
    client = await server.provider.clients.register({
      name: 'Set-top Box',
      constrainedDevice: true,
    });
    owner = await server.provider.owners.create('dana', 'correct horse battery');
  });
  after(() => server.close());

  async function pending(): Promise<TokenCredentials> {
    return processTemporaryCredentialsResponse(
      await requestTemporaryCredentials(`${server.url}/oauth/request_token`, {
        client: { key: client.key, secret: client.secret },
        callback: 'oob',
      }),
    );
  }

  function exchange(temporary: TokenCredentials, verifier: string) {
    return requestTokenCredentials(`${server.url}/oauth/access_token`, {
      client: { key: client.key, secret: client.secret },
      temporary,
      verifier,
    });
  }

  it('stores the code as an HMAC under the sealing key, never its plain digest, and exchanges it as typed', async () => {
    const temporary = await pending();
    const approval = await server.provider.authorization.approve(temporary.token, owner.id);
    assert.match(approval.verifier, /^[A-Z0-9]{8}$/, 'a typed code');
    const stored = (await server.store.temporaryCredentials.find(temporary.token))?.verifier;
    assert.ok(stored !== undefined && stored !== null);
    assert.ok(stored.startsWith(`k1.${key.id}.`), 'keyed, naming the key');
    assert.notEqual(stored, sha256(approval.verifier), 'not the plain SHA-256 of the code');
    assert.equal(stored.includes(sha256(approval.verifier)), false);
    // Typed the way a person does: lower case, with the dash shown.
    const typed = `${approval.verifier.slice(0, 4)}-${approval.verifier.slice(4)}`.toLowerCase();
    assert.equal((await exchange(temporary, typed)).status, 200);
  });

  it('still exchanges a code stored as plain SHA-256 before keyed digests', async () => {
    const temporary = await pending();
    const code = 'ABCD7890';
    const written = await server.store.temporaryCredentials.authorize(
      temporary.token,
      { ownerId: owner.id, verifier: sha256(code), scope: '', lifetime: null },
      Date.now(),
    );
    assert.equal(written, true);
    assert.equal((await exchange(temporary, 'WXYZ-7890')).status, 401, 'another code');
    assert.equal((await exchange(temporary, 'abcd-7890')).status, 200);
  });
});
