import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import {
  collectParameters,
  parseAuthorizationHeader,
  parseFormUrlEncoded,
} from '../../src/protocol/index.ts';
import { vectors } from '../vectors/rfc5849.ts';

const { client, token } = vectors.walkthrough.credentials;
const FORM = 'application/x-www-form-urlencoded';
const base = { client, token, nonce: 'n', timestamp: 1 } as const;

describe('RFC 5849 §3.5.1 the SDK sends protocol parameters in the Authorization header by default', () => {
  const signed = signRequest({ ...base, method: 'get', url: 'http://h.example/p?a=1', body: 'x' });

  it('puts every protocol parameter, oauth_signature included, in the header', () => {
    const names = parseAuthorizationHeader(signed.headers['Authorization']!)!.parameters.map(
      ([name]) => name,
    );
    assert.deepEqual(names.sort(), [
      'oauth_consumer_key',
      'oauth_nonce',
      'oauth_signature',
      'oauth_signature_method',
      'oauth_timestamp',
      'oauth_token',
      'oauth_version',
    ]);
  });

  it('leaves the URL and the body as they were', () => {
    assert.equal(signed.url, 'http://h.example/p?a=1');
    assert.equal(signed.body, 'x');
  });

  it('sends the realm when one is given', () => {
    const withRealm = signRequest({ ...base, method: 'GET', url: 'http://h/', realm: 'Photos' });
    assert.equal(parseAuthorizationHeader(withRealm.headers['Authorization']!)?.realm, 'Photos');
  });

  it('uppercases the method and keeps the caller’s other headers', () => {
    const other = signRequest({ ...base, method: 'get', url: 'http://h/', headers: { X: '1' } });
    assert.equal(other.method, 'GET');
    assert.equal(other.headers['X'], '1');
  });

  it('drops a fragment from the URL', () => {
    assert.equal(signRequest({ ...base, method: 'GET', url: 'http://h/p#f' }).url, 'http://h/p');
  });
});

describe('RFC 5849 §3.5.2 the SDK sends protocol parameters in a form body', () => {
  it('appends them after the request-specific pairs', () => {
    const signed = signRequest({
      ...base,
      method: 'POST',
      url: 'http://h/',
      body: new URLSearchParams({ a: 'b c' }),
      transmission: 'body',
    });
    const pairs = parseFormUrlEncoded(signed.body as string);
    assert.deepEqual(pairs[0], ['a', 'b c']);
    assert.ok(pairs.slice(1).every(([name]) => name.startsWith('oauth_')));
  });

  it('keeps a form body given as bytes and appends to it', () => {
    const signed = signRequest({
      ...base,
      method: 'POST',
      url: 'http://h/',
      headers: { 'Content-Type': FORM },
      body: new TextEncoder().encode('a=%C3%A9'),
      transmission: 'body',
    });
    assert.deepEqual(parseFormUrlEncoded(signed.body as string)[0], ['a', 'é']);
  });

  it('throws a TypeError for a form body given as bytes that are not UTF-8', () => {
    const options = { ...base, method: 'POST', url: 'http://h/', transmission: 'body' } as const;
    const body = new Uint8Array([0x61, 0x3d, 0xff]);
    assert.throws(
      () => signRequest({ ...options, headers: { 'Content-Type': FORM }, body }),
      TypeError,
    );
  });

  it('sets the form content type when the request had no body', () => {
    const signed = signRequest({ ...base, method: 'POST', url: 'http://h/', transmission: 'body' });
    assert.equal(signed.headers['Content-Type'], FORM);
    assert.equal(
      collectParameters({ body: signed.body as string, contentType: FORM }).transmission,
      'body',
    );
  });

  it('throws a TypeError for a body that is not a form', () => {
    assert.throws(
      () =>
        signRequest({
          ...base,
          method: 'POST',
          url: 'http://h/',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
          transmission: 'body',
        }),
      TypeError,
    );
  });

  it('throws a TypeError for a string body without a content type', () => {
    const options = { ...base, method: 'POST', url: 'http://h/', body: 'a=1' } as const;
    assert.throws(() => signRequest({ ...options, transmission: 'body' }), TypeError);
  });

  it('throws a TypeError when the declared content type is not a form, even without a body', () => {
    const options = { ...base, method: 'POST', url: 'http://h/', transmission: 'body' } as const;
    assert.throws(
      () => signRequest({ ...options, headers: { 'Content-Type': 'text/plain' } }),
      TypeError,
    );
  });
});

describe('RFC 5849 §3.5.3 the SDK sends protocol parameters in the query', () => {
  const signed = signRequest({
    ...base,
    method: 'GET',
    url: 'http://h/p?file=vacation.jpg&x=a+b',
    transmission: 'query',
  });

  it('appends them after the existing query, which stays as it was', () => {
    assert.ok(signed.url.startsWith('http://h/p?file=vacation.jpg&x=a+b&oauth_'));
  });

  it('adds no Authorization header', () => {
    assert.equal(signed.headers['Authorization'], undefined);
  });
});

describe('Request Body Hash extension: signRequest({ bodyHash: true })', () => {
  const hashOf = (signed: ReturnType<typeof signRequest>) =>
    new Map(parseAuthorizationHeader(signed.headers['Authorization']!)!.parameters).get(
      'oauth_body_hash',
    );

  it('signs the base64 digest of the body, with the digest of the method', () => {
    const body = 'Hello World!';
    const headers = { 'Content-Type': 'text/plain' };
    const sha1 = signRequest({
      ...base,
      method: 'POST',
      url: 'http://h.example/',
      headers,
      body,
      bodyHash: true,
    });
    assert.equal(hashOf(sha1), 'Lve95gjOVATpfV8EL5X4nxwjKHE=');
    assert.match(sha1.baseString, /oauth_body_hash%3DLve95gjOVATpfV8EL5X4nxwjKHE%253D/);
    const sha256 = signRequest({
      ...base,
      method: 'POST',
      url: 'http://h.example/',
      headers,
      body,
      bodyHash: true,
      signatureMethod: 'HMAC-SHA256',
    });
    assert.equal(hashOf(sha256)?.length, 44);
  });

  it('hashes an absent body as the empty string', () => {
    const signed = signRequest({
      ...base,
      method: 'GET',
      url: 'http://h.example/',
      bodyHash: true,
    });
    assert.equal(hashOf(signed), '2jmj7l5rSw0yVb/vlWAYkK/YBwk=');
  });

  it('refuses a form body (its parameters are signed already) and PLAINTEXT (it signs none)', () => {
    assert.throws(
      () =>
        signRequest({
          ...base,
          method: 'POST',
          url: 'http://h.example/',
          body: new URLSearchParams([['a', '1']]),
          bodyHash: true,
        }),
      TypeError,
    );
    assert.throws(
      () =>
        signRequest({
          ...base,
          method: 'POST',
          url: 'http://h.example/',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
          bodyHash: true,
          signatureMethod: 'PLAINTEXT',
        }),
      TypeError,
    );
  });
});
