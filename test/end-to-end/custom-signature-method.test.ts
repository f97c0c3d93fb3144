// A signature method is one descriptor (docs/architecture.md, "How to add a signature
// method"): two methods this server does not ship (test/support/own-signature-methods.ts,
// written against the public API `latchkey/protocol`), added with the registry's `with()`,
// work end to end on a real server on SQLite: clients register with them, the three steps run
// (RFC 5849 §2), and a signed request reaches /api/me.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  signRequest,
} from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { SignatureMethodRegistry } from '../../src/index.ts';
import { InputError } from '../../src/provider/index.ts';
import { ED25519, HMAC_SHA384 } from '../support/own-signature-methods.ts';
import { localOwnerRecord } from '../support/owners.ts';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';

const methods = new SignatureMethodRegistry().with(ED25519).with(HMAC_SHA384);
const edKeys = generateKeyPairSync('ed25519');
const ED_PUBLIC = edKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const ED_PRIVATE = edKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const RSA_PUBLIC = readFileSync(new URL('../fixtures/rsa-public.pem', import.meta.url), 'utf8');

let server: TestServer;
let ownerId: string;
before(async () => {
  server = await startServer({ policy: { signatureMethods: methods } });
  const owner = await server.store.owners.create(
    localOwnerRecord({ id: 'owner-ada', username: 'ada', passwordHash: 'scrypt$unused' }),
  );
  ownerId = owner.id;
});
after(() => server.close());

/** One signed request with `method`, sent to the server. */
function send(
  method: string,
  path: string,
  client: ClientCredentials,
  token?: TokenCredentials,
  protocolParameters?: Record<string, string>,
) {
  const signed = signRequest({
    method: path === '/api/me' ? 'GET' : 'POST',
    url: server.url + path,
    client,
    token,
    signatureMethod: method,
    protocolParameters,
    methods,
  });
  const body = signed.body === undefined ? {} : { body: signed.body as string };
  return fetch(signed.url, { method: signed.method, headers: signed.headers, ...body });
}

/** The three steps (§2.1–§2.3), approved by the owner through the provider. */
async function threeSteps(method: string, client: ClientCredentials): Promise<TokenCredentials> {
  const temporary = await processTemporaryCredentialsResponse(
    await send(method, '/oauth/request_token', client, undefined, { oauth_callback: 'oob' }),
  );
  const { verifier } = await server.provider.authorization.approve(temporary.token, ownerId);
  return processTokenCredentialsResponse(
    await send(method, '/oauth/access_token', client, temporary, { oauth_verifier: verifier }),
  );
}

describe('A public-key method added with with(): ED25519', () => {
  it('registers a client with its Ed25519 key and no shared secret', async () => {
    const client = await server.provider.clients.register({
      name: 'Ed app',
      signatureMethods: ['ED25519'],
      publicKey: ED_PUBLIC,
    });
    assert.equal(client.secret, '', 'a client that signs with its key pair has no secret');
    assert.equal(client.publicKey, ED_PUBLIC);
  });

  it('runs the three steps and signs a request to /api/me (200, the client named)', async () => {
    const client = await server.provider.clients.register({
      name: 'Ed app',
      signatureMethods: ['ED25519'],
      publicKey: ED_PUBLIC,
    });
    const credentials = { key: client.key, privateKey: ED_PRIVATE };
    const token = await threeSteps('ED25519', credentials);
    const answer = await send('ED25519', '/api/me', credentials, token);
    assert.equal(answer.status, 200, await answer.clone().text());
    const body = (await answer.json()) as { client: { key: string }; owner: { id: string } };
    assert.equal(body.client.key, client.key);
  });

  it('refuses a request signed with another Ed25519 key (401 signature_invalid)', async () => {
    const client = await server.provider.clients.register({
      name: 'Ed app',
      signatureMethods: ['ED25519'],
      publicKey: ED_PUBLIC,
    });
    const other = generateKeyPairSync('ed25519').privateKey;
    const answer = await send('ED25519', '/api/me', { key: client.key, privateKey: other });
    assert.equal(answer.status, 401);
    assert.match(await answer.text(), /oauth_problem=signature_invalid/);
  });

  it('refuses an RSA key for ED25519 at registration, naming publicKey', async () => {
    await assert.rejects(
      server.provider.clients.register({
        name: 'Wrong key',
        signatureMethods: ['ED25519'],
        publicKey: RSA_PUBLIC,
      }),
      (error) => {
        assert.ok(error instanceof InputError);
        assert.equal(error.field, 'publicKey');
        assert.match(error.message, /ED25519 public key/);
        return true;
      },
    );
  });

  it('refuses ED25519 from a client with no public key (400 signature_method_rejected)', async () => {
    const client = await server.provider.clients.register({ name: 'Secret only' });
    const answer = await send('ED25519', '/api/me', { key: client.key, privateKey: ED_PRIVATE });
    assert.equal(answer.status, 400);
    assert.match(await answer.text(), /oauth_problem=signature_method_rejected/);
  });
});

describe('An imported client of a method added with with()', () => {
  /** One client record through the provider's import (docs/import.md), written. */
  async function importClient(value: Record<string, unknown>) {
    const session = server.provider.transfer.importer();
    const item = { line: 1, value: { kind: 'client', ...value } };
    assert.equal(session.check(item), 'client');
    assert.deepEqual(await session.resolve(), []);
    const [outcome] = await session.write([{ line: 1, record: session.record(item, 'client')! }]);
    return outcome;
  }

  it('needs no secret when it signs with ED25519 only, and then signs requests', async () => {
    const outcome = await importClient({
      key: 'imported-ed',
      name: 'Imported Ed app',
      signatureMethods: ['ED25519'],
      publicKey: ED_PUBLIC,
    });
    assert.equal(outcome?.outcome, 'created', outcome?.detail);
    const answer = await send('ED25519', '/api/me', { key: 'imported-ed', privateKey: ED_PRIVATE });
    assert.equal(answer.status, 200, await answer.clone().text());
  });

  it('needs a secret when it signs with HMAC-SHA384 (an error naming it)', async () => {
    const outcome = await importClient({
      key: 'imported-384',
      name: 'Imported SHA-384 app',
      signatureMethods: ['HMAC-SHA384'],
    });
    assert.equal(outcome?.outcome, 'error');
    assert.match(outcome?.detail ?? '', /needs its secret/);
  });
});

describe('A shared-secret method added with with(): HMAC-SHA384', () => {
  it('registers a client with a generated secret, runs the three steps and calls /api/me', async () => {
    const client = await server.provider.clients.register({
      name: 'SHA-384 app',
      signatureMethods: ['HMAC-SHA384'],
    });
    assert.ok(client.secret.length > 0, 'a shared-secret method needs a secret');
    const credentials = { key: client.key, secret: client.secret };
    const token = await threeSteps('HMAC-SHA384', credentials);
    const answer = await send('HMAC-SHA384', '/api/me', credentials, token);
    assert.equal(answer.status, 200, await answer.clone().text());
  });

  it('refuses a request signed with a wrong secret (401 signature_invalid)', async () => {
    const client = await server.provider.clients.register({
      name: 'SHA-384 app',
      signatureMethods: ['HMAC-SHA384'],
    });
    const answer = await send('HMAC-SHA384', '/api/me', { key: client.key, secret: 'wrong' });
    assert.equal(answer.status, 401);
    assert.match(await answer.text(), /oauth_problem=signature_invalid/);
  });
});
