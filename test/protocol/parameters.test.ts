import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectParameters, isFormContentType } from '../../src/protocol/index.ts';
import { assertOAuthError } from './assert-oauth-error.ts';

const FORM = 'application/x-www-form-urlencoded';

describe('RFC 5849 §3.4.1.3.1 parameter sources', () => {
  it('collects the protocol parameters of the Authorization header', () => {
    const collected = collectParameters({
      authorization: 'OAuth realm="r", oauth_consumer_key="k", oauth_nonce="n"',
    });
    assert.equal(collected.transmission, 'header');
    assert.deepEqual(collected.signed, [
      ['oauth_consumer_key', 'k'],
      ['oauth_nonce', 'n'],
    ]);
  });

  it('signs every header parameter, oauth_* or not, copies of the query and body included', () => {
    const collected = collectParameters({
      authorization: 'OAuth oauth_nonce="n", a="1", b="2", c="3", c="4"',
      query: 'a=1',
      body: 'b=2',
      contentType: FORM,
    });
    assert.equal(collected.transmission, 'header');
    assert.deepEqual(collected.signed, [
      ['oauth_nonce', 'n'],
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
      ['c', '4'],
      ['b', '2'],
      ['a', '1'],
    ]);
    // Handed over once, where they belong; only what the header alone carries is "header".
    assert.deepEqual(collected.query, [['a', '1']]);
    assert.deepEqual(collected.form, [['b', '2']]);
    assert.deepEqual(collected.header, [
      ['c', '3'],
      ['c', '4'],
    ]);
  });

  it('keeps a header pair whose name is in the query with another value', () => {
    const collected = collectParameters({
      authorization: 'OAuth oauth_nonce="n", a="2"',
      query: 'a=1',
    });
    assert.deepEqual(collected.header, [['a', '2']]);
    assert.deepEqual(collected.query, [['a', '1']]);
  });

  it('has no header pairs when the header carries only protocol parameters', () => {
    assert.deepEqual(collectParameters({ authorization: 'OAuth oauth_nonce="n"' }).header, []);
    assert.deepEqual(collectParameters({ query: 'a=1' }).header, []);
  });

  it('returns the header realm apart, not signed', () => {
    const collected = collectParameters({ authorization: 'OAuth realm="r", oauth_nonce="n"' });
    assert.equal(collected.realm, 'r');
    assert.ok(collected.signed.every(([name]) => name !== 'realm'));
  });

  it('ignores an Authorization header of another scheme', () => {
    const collected = collectParameters({
      authorization: 'Basic dXNlcjpwYXNz',
      query: 'oauth_nonce=n',
    });
    assert.equal(collected.transmission, 'query');
  });

  it('collects the query pairs, protocol and other', () => {
    const collected = collectParameters({ query: 'file=vacation.jpg&oauth_nonce=n' });
    assert.equal(collected.transmission, 'query');
    assert.deepEqual(collected.signed, [
      ['file', 'vacation.jpg'],
      ['oauth_nonce', 'n'],
    ]);
    assert.deepEqual(collected.query, [['file', 'vacation.jpg']]);
  });

  it('collects a form body sent as application/x-www-form-urlencoded', () => {
    const collected = collectParameters({ body: 'a=1&oauth_nonce=n', contentType: FORM });
    assert.equal(collected.transmission, 'body');
    assert.deepEqual(collected.form, [['a', '1']]);
    assert.deepEqual(collected.signed, [
      ['a', '1'],
      ['oauth_nonce', 'n'],
    ]);
  });

  it('collects a form body whose content type carries "; charset=UTF-8"', () => {
    const collected = collectParameters({ body: 'a=1', contentType: `${FORM}; charset=UTF-8` });
    assert.deepEqual(collected.signed, [['a', '1']]);
  });

  it('ignores a body of another content type', () => {
    const collected = collectParameters({ body: 'a=1&oauth_nonce=n', contentType: 'text/plain' });
    assert.deepEqual(collected.signed, []);
    assert.equal(collected.transmission, undefined);
  });

  it('ignores a body sent without a content type', () => {
    assert.deepEqual(collectParameters({ body: 'a=1' }).signed, []);
  });

  it('excludes oauth_signature from the signed pairs but keeps it among the protocol ones', () => {
    const collected = collectParameters({ query: 'oauth_signature=s%3D&oauth_nonce=n' });
    assert.deepEqual(collected.signed, [['oauth_nonce', 'n']]);
    assert.equal(collected.protocol.get('oauth_signature'), 's=');
  });

  it('keeps empty values', () => {
    const collected = collectParameters({ query: 'a=&b&oauth_token=' });
    assert.deepEqual(collected.signed, [
      ['a', ''],
      ['b', ''],
      ['oauth_token', ''],
    ]);
  });

  it('keeps repeated request-specific names, also across query and body', () => {
    const collected = collectParameters({ query: 'a=1&a=2', body: 'a=3', contentType: FORM });
    assert.deepEqual(
      collected.signed.filter(([name]) => name === 'a').map(([, value]) => value),
      ['3', '1', '2'],
    );
  });

  it('reports no transmission when no protocol parameter was sent', () => {
    const collected = collectParameters({ query: 'a=1' });
    assert.equal(collected.transmission, undefined);
    assert.equal(collected.protocol.size, 0);
  });

  it('collects nothing from empty sources', () => {
    const collected = collectParameters({ query: '', body: '', contentType: FORM });
    assert.deepEqual(collected.signed, []);
    assert.equal(collected.realm, undefined);
  });
});

describe('RFC 5849 §3.5 one place for the protocol parameters, each once', () => {
  it('rejects a protocol parameter given twice in the query with parameter_rejected', () => {
    const error = assertOAuthError(
      () => collectParameters({ query: 'oauth_nonce=a&oauth_nonce=b' }),
      'parameter_rejected',
      400,
    );
    assert.deepEqual(error.advice, { oauth_parameters_rejected: 'oauth_nonce' });
  });

  it('rejects a protocol parameter given twice in the body with parameter_rejected', () => {
    assertOAuthError(
      () => collectParameters({ body: 'oauth_token=a&oauth_token=a', contentType: FORM }),
      'parameter_rejected',
      400,
    );
  });

  it('rejects oauth_signature given twice with parameter_rejected', () => {
    assertOAuthError(
      () => collectParameters({ query: 'oauth_signature=a&oauth_signature=b' }),
      'parameter_rejected',
      400,
    );
  });

  it('rejects protocol parameters in the header and the query with parameter_rejected', () => {
    assertOAuthError(
      () => collectParameters({ authorization: 'OAuth oauth_nonce="n"', query: 'oauth_token=t' }),
      'parameter_rejected',
      400,
    );
  });

  it('rejects protocol parameters in the header and the body with parameter_rejected', () => {
    assertOAuthError(
      () =>
        collectParameters({
          authorization: 'OAuth oauth_nonce="n"',
          body: 'oauth_token=t',
          contentType: FORM,
        }),
      'parameter_rejected',
      400,
    );
  });

  it('rejects protocol parameters in the body and the query with parameter_rejected', () => {
    assertOAuthError(
      () => collectParameters({ body: 'oauth_nonce=n', contentType: FORM, query: 'oauth_nonce=n' }),
      'parameter_rejected',
      400,
    );
  });

  it('accepts request-specific parameters beside header-borne protocol parameters', () => {
    const collected = collectParameters({
      authorization: 'OAuth oauth_nonce="n"',
      query: 'a=1',
      body: 'b=2',
      contentType: FORM,
    });
    assert.equal(collected.transmission, 'header');
    assert.equal(collected.signed.length, 3);
  });
});

describe('form content type detection (RFC 5849 §3.4.1.3.1)', () => {
  it('accepts application/x-www-form-urlencoded in any case', () => {
    assert.equal(isFormContentType('Application/X-WWW-Form-URLEncoded'), true);
  });

  it('accepts the type with parameters and whitespace', () => {
    assert.equal(isFormContentType(` ${FORM} ; charset=UTF-8`), true);
  });

  it('refuses other types', () => {
    assert.equal(isFormContentType('multipart/form-data'), false);
    assert.equal(isFormContentType(`${FORM}x`), false);
  });

  it('refuses a missing content type', () => {
    assert.equal(isFormContentType(undefined), false);
  });
});
