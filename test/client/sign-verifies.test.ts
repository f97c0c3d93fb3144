// Every signature the SDK makes verifies the way a server checks it (protocol core only), for
// each method and each transmission, with awkward form bodies and URLs with queries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { RequestBody, SignOptions } from '../../src/client/index.ts';
import { builtInSignatureMethods, parseRsaPublicKey } from '../../src/protocol/index.ts';
import type { Transmission } from '../../src/protocol/index.ts';
import { rsaPrivateKeyPem, rsaPublicKeyPem, vectors } from '../vectors/rfc5849.ts';
import { verifyAsServer } from './verify-as-server.ts';

const { client, token } = vectors.walkthrough.credentials;
const serverKeys = {
  clientSecret: client.secret,
  tokenSecret: token.secret,
  publicKey: parseRsaPublicKey(rsaPublicKeyPem),
};
const FORM = 'application/x-www-form-urlencoded';

interface Case {
  readonly what: string;
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: RequestBody;
  /** False when the body is not a form, so only header and query transmission apply. */
  readonly bodyTransmission: boolean;
}

const cases: Case[] = [
  {
    what: 'a GET with an existing query',
    method: 'GET',
    url: 'http://photos.example.net/photos?file=vacation.jpg&size=original',
    bodyTransmission: false,
  },
  {
    what: 'a URL with a port, an encoded path and an awkward query',
    method: 'GET',
    url: 'http://127.0.0.1:8080/p%20q/r?x=a+b&y=%25&z=&z&w=%E2%82%AC&t=~&s=%2B#frag',
    bodyTransmission: false,
  },
  {
    what: 'a URLSearchParams body with spaces, "+", "%", "~", non-ASCII, empty and repeated values',
    method: 'POST',
    url: 'https://photos.example.net/upload?album=summer%202024',
    body: new URLSearchParams([
      ['a b', 'c d'],
      ['plus', '1+1'],
      ['pct', '100%'],
      ['tilde', '~x'],
      ['uni', 'héllo 😀'],
      ['empty', ''],
      ['rep', '1'],
      ['rep', '1'],
    ]),
    bodyTransmission: true,
  },
  {
    what: 'a raw form body with "+" for space, %7E, empty elements and a charset parameter',
    method: 'POST',
    url: 'https://photos.example.net/upload',
    headers: { 'content-type': `${FORM}; charset=UTF-8` },
    body: 'a=b+c&x=%7E&y=~&z=%2B&&e=&e&r=1&r=2&u=%C3%A9',
    bodyTransmission: true,
  },
  {
    what: 'a form body given as bytes',
    method: 'PUT',
    url: 'https://photos.example.net/photos/1',
    headers: { 'Content-Type': FORM },
    body: new TextEncoder().encode('title=Caf%C3%A9+au+lait&tag=&tag=x'),
    bodyTransmission: true,
  },
  {
    what: 'a JSON body, which is not signed',
    method: 'PATCH',
    url: 'https://photos.example.net/photos/1?x=1',
    headers: { 'Content-Type': 'application/json' },
    body: '{"title":"a=b&oauth_token=x"}',
    bodyTransmission: false,
  },
];

function sign(c: Case, signatureMethod: string, transmission: Transmission) {
  const options: SignOptions = {
    method: c.method,
    url: c.url,
    headers: c.headers,
    body: c.body,
    client: { ...client, privateKey: rsaPrivateKeyPem },
    token,
    signatureMethod,
    transmission,
  };
  return signRequest(options);
}

for (const method of builtInSignatureMethods) {
  for (const transmission of ['header', 'body', 'query'] as const) {
    describe(`RFC 5849 §3.5 ${method.name} in the ${transmission}: a server verifies`, () => {
      for (const c of cases) {
        if (transmission === 'body' && !c.bodyTransmission) continue;
        it(c.what, () => {
          const signed = sign(c, method.name, transmission);
          const server = verifyAsServer(signed, serverKeys);
          assert.equal(server.collected.transmission, transmission);
          assert.equal(server.baseString, signed.baseString);
          assert.equal(server.valid, true);
        });
      }
    });
  }
}

describe('RFC 5849 §3.4 a server refuses what was signed for someone else', () => {
  it('refuses a signature made with another token secret', () => {
    const signed = signRequest({
      method: 'GET',
      url: cases[0]!.url,
      client,
      token: { token: token.token, secret: 'not-the-secret' },
    });
    assert.equal(verifyAsServer(signed, serverKeys).valid, false);
  });
});
