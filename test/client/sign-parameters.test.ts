import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { createNonce, encodeForm, signRequest } from '../../src/client/index.ts';
import {
  parseAuthorizationHeader,
  PLAINTEXT,
  SignatureMethodRegistry,
} from '../../src/protocol/index.ts';
import { rsaPrivateKeyPem, vectors } from '../vectors/rfc5849.ts';

const { client, token } = vectors.walkthrough.credentials;
const base = { client, token, nonce: 'n', timestamp: 1 } as const;

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
