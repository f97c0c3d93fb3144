// createSigningFetch against a real node:http server on 127.0.0.1 that verifies every
// signature with the protocol core (local-server.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSigningFetch } from '../../src/client/index.ts';
import type { SigningFetchOptions } from '../../src/client/index.ts';
import { parseFormUrlEncoded } from '../../src/protocol/index.ts';
import { rsaPrivateKeyPem, vectors } from '../vectors/rfc5849.ts';
import { startLocalServer } from './local-server.ts';
import type { LocalServer } from './local-server.ts';

const { client, token } = vectors.walkthrough.credentials;

/** The local server's answer for a protected resource: what it verified. */
const served = async (response: Response) =>
  (await response.json()) as { transmission: string; signed: [string, string][] };

describe('RFC 5849 §3.1 createSigningFetch against a verifying server', () => {
  let server: LocalServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server.close());

  const api = (options: Partial<SigningFetchOptions> = {}) =>
    createSigningFetch({ client, token, ...options });

  it('sends a GET with an existing query that the server verifies', async () => {
    const response = await api()(`${server.origin}/photos?file=vacation.jpg&size=original`);
    assert.equal(response.status, 200);
    assert.equal((await served(response)).transmission, 'header');
  });

  for (const transmission of ['header', 'body', 'query'] as const) {
    it(`sends a form POST with protocol parameters in the ${transmission}, verified`, async () => {
      const body = new URLSearchParams([
        ['caption', 'a b+c 100% ~ é'],
        ['tag', ''],
        ['tag', 'x'],
      ]);
      const response = await api({ transmission })(`${server.origin}/photos?album=1`, {
        method: 'POST',
        body,
      });
      assert.equal(response.status, 200);
      assert.equal((await served(response)).transmission, transmission);
    });
  }

  it('sends a form body given as bytes, verified with its pairs signed', async () => {
    const response = await api()(`${server.origin}/photos`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new TextEncoder().encode('title=Caf%C3%A9+au+lait'),
    });
    assert.equal(response.status, 200);
    const { signed } = await served(response);
    assert.deepEqual(
      signed.find(([name]) => name === 'title'),
      ['title', 'Café au lait'],
    );
  });

  it('signs with RSA-SHA256, verified with the client’s public key', async () => {
    const rsaClient = { key: client.key, privateKey: rsaPrivateKeyPem };
    const response = await api({ client: rsaClient, signatureMethod: 'RSA-SHA256' })(
      `${server.origin}/photos`,
    );
    assert.equal(response.status, 200);
  });

  it('is refused with signature_invalid when signed with a wrong secret', async () => {
    const response = await api({ client: { ...client, secret: 'wrong' } })(`${server.origin}/x`);
    assert.equal(response.status, 401);
    assert.deepEqual(parseFormUrlEncoded(await response.text())[0], [
      'oauth_problem',
      'signature_invalid',
    ]);
  });

  it('sends the realm and the caller’s headers', async () => {
    await (
      await api({ realm: 'Photos' })(`${server.origin}/r`, { headers: { 'X-Trace': '7' } })
    ).text();
    const seen = server.seen.at(-1)!;
    assert.equal(seen.collected?.realm, 'Photos');
    assert.equal(seen.headers['x-trace'], '7');
  });

  it('adds the extra protocol parameters of a request, signed', async () => {
    const response = await createSigningFetch({ client })(`${server.origin}/initiate`, {
      method: 'POST',
      protocolParameters: { oauth_callback: 'oob' },
    });
    assert.equal(response.status, 200);
    assert.equal(server.seen.at(-1)?.collected?.protocol.get('oauth_callback'), 'oob');
  });

  it('does not follow a redirect, which would resend the signature elsewhere', async () => {
    const response = await api()(`${server.origin}/redirect`);
    assert.equal(response.status, 302);
    assert.equal(server.seen.at(-1)?.path, '/redirect');
  });

  it('sends with the fetch it is given', async () => {
    const urls: string[] = [];
    const recording: typeof fetch = (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    await (await api({ fetch: recording })(`${server.origin}/photos`)).text();
    assert.deepEqual(urls, [`${server.origin}/photos`]);
  });

  it('passes the abort signal on', async () => {
    await assert.rejects(api()(`${server.origin}/photos`, { signal: AbortSignal.abort() }), {
      name: 'AbortError',
    });
  });
});
