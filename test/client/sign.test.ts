import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { createNonce, encodeForm, signRequest } from '../../src/client/index.ts';
import {
  collectParameters,
  parseAuthorizationHeader,
  parseFormUrlEncoded,
  PLAINTEXT,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import { rsaPrivateKeyPem, vectors } from '../vectors/rfc5849.ts';

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

describe('RFC 5849 §3.1 the protocol parameters the SDK assigns', () => {
  const pairsOf = (options: Parameters<typeof signRequest>[0]) =>
    new Map(parseAuthorizationHeader(signRequest(options).headers['Authorization']!)!.parameters);

  it('sends oauth_version=1.0 unless told not to', () => {
    const options = { ...base, method: 'GET', url: 'http://h/' };
    assert.equal(pairsOf(options).get('oauth_version'), '1.0');
    assert.equal(pairsOf({ ...options, includeVersion: false }).has('oauth_version'), false);
  });

  it('leaves out oauth_token when there are no token credentials (§2.1)', () => {
    assert.equal(pairsOf({ client, method: 'POST', url: 'http://h/' }).has('oauth_token'), false);
  });

  it('signs with HMAC-SHA1 unless told otherwise', () => {
    assert.equal(
      pairsOf({ client, method: 'GET', url: 'http://h/' }).get('oauth_signature_method'),
      'HMAC-SHA1',
    );
  });

  it('uses the current time in seconds as the timestamp', () => {
    const before = Math.floor(Date.now() / 1000);
    const stamp = Number(
      pairsOf({ client, method: 'GET', url: 'http://h/' }).get('oauth_timestamp'),
    );
    assert.ok(stamp >= before && stamp <= Math.floor(Date.now() / 1000));
  });

  it('uses a fresh nonce of unreserved characters for every request', () => {
    const a = pairsOf({ client, method: 'GET', url: 'http://h/' }).get('oauth_nonce');
    const b = pairsOf({ client, method: 'GET', url: 'http://h/' }).get('oauth_nonce');
    assert.notEqual(a, b);
    assert.match(createNonce(), /^[A-Za-z0-9_-]{22}$/);
  });

  it('adds further protocol parameters such as oauth_callback', () => {
    const callback = 'http://printer.example.com/ready';
    const options = {
      client,
      method: 'POST',
      url: 'http://h/',
      protocolParameters: { oauth_callback: callback },
    };
    assert.equal(pairsOf(options).get('oauth_callback'), callback);
  });
});

describe('RFC 5849 §3.4 the SDK’s signature methods', () => {
  it('throws a TypeError for an unknown method', () => {
    assert.throws(
      () => signRequest({ ...base, method: 'GET', url: 'http://h/', signatureMethod: 'HMAC-MD5' }),
      TypeError,
    );
  });

  it('signs with a custom method from the registry it is given', () => {
    const methods = new SignatureMethodRegistry().with({ ...PLAINTEXT, name: 'X-MINE' });
    const signed = signRequest({
      ...base,
      method: 'GET',
      url: 'http://h/',
      signatureMethod: 'X-MINE',
      methods,
    });
    const pairs = new Map(parseAuthorizationHeader(signed.headers['Authorization']!)!.parameters);
    assert.equal(pairs.get('oauth_signature'), `${client.secret}&${token.secret}`);
  });

  it('accepts the RSA private key as PEM text or as a KeyObject', () => {
    const options = { ...base, method: 'GET', url: 'http://h/', signatureMethod: 'RSA-SHA256' };
    const fromPem = signRequest({
      ...options,
      client: { key: client.key, privateKey: rsaPrivateKeyPem },
    });
    const fromKey = signRequest({
      ...options,
      client: { key: client.key, privateKey: createPrivateKey(rsaPrivateKeyPem) },
    });
    assert.equal(fromPem.headers['Authorization'], fromKey.headers['Authorization']);
  });
});

describe('RFC 5849 §3.5.2 form encoding of the SDK', () => {
  it('encodes a space as %20 and every reserved character', () => {
    assert.equal(encodeForm([['a b', "c+d&e=f!'"]]), 'a%20b=c%2Bd%26e%3Df%21%27');
  });
});
