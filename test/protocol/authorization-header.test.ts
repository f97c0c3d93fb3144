import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAuthorizationHeader } from '../../src/protocol/index.ts';
import { assertOAuthError } from './assert-oauth-error.ts';

const parse = (value: string) => parseAuthorizationHeader(value);

describe('RFC 5849 §3.5.1 Authorization header parsing', () => {
  it('reads name="value" pairs in the order received', () => {
    assert.deepEqual(parse('OAuth oauth_consumer_key="k", oauth_nonce="n"'), {
      realm: undefined,
      parameters: [
        ['oauth_consumer_key', 'k'],
        ['oauth_nonce', 'n'],
      ],
    });
  });

  it('accepts the scheme name in any case', () => {
    for (const scheme of ['oauth', 'OAUTH', 'oAuTh']) {
      assert.deepEqual(parse(`${scheme} oauth_token="t"`)?.parameters, [['oauth_token', 't']]);
    }
  });

  it('returns the realm apart from the parameters', () => {
    const header = parse('OAuth realm="Photos", oauth_token="t"');
    assert.equal(header?.realm, 'Photos');
    assert.deepEqual(header?.parameters, [['oauth_token', 't']]);
  });

  it('takes the realm as a quoted-string, without percent-decoding it', () => {
    assert.equal(parse('OAuth realm="a%20b \\"c\\""')?.realm, 'a%20b "c"');
  });

  it('tolerates optional whitespace around "=" and ","', () => {
    const header = parse('OAuth \t oauth_a = "1" ,\toauth_b=  "2"  ');
    assert.deepEqual(header?.parameters, [
      ['oauth_a', '1'],
      ['oauth_b', '2'],
    ]);
  });

  it('trims other whitespace around a name, as a folded header line leaves it', () => {
    assert.deepEqual(parse('OAuth oauth_a="1",\n oauth_b\r\n="2"')?.parameters, [
      ['oauth_a', '1'],
      ['oauth_b', '2'],
    ]);
  });

  it('accepts parameters with no space after the comma', () => {
    assert.deepEqual(parse('OAuth oauth_a="1",oauth_b="2"')?.parameters, [
      ['oauth_a', '1'],
      ['oauth_b', '2'],
    ]);
  });

  it('skips empty list elements', () => {
    assert.deepEqual(parse('OAuth , oauth_a="1",, ,oauth_b="2",')?.parameters, [
      ['oauth_a', '1'],
      ['oauth_b', '2'],
    ]);
  });

  it('accepts unquoted token values', () => {
    assert.deepEqual(parse('OAuth oauth_nonce=abc,oauth_timestamp=137131200')?.parameters, [
      ['oauth_nonce', 'abc'],
      ['oauth_timestamp', '137131200'],
    ]);
  });

  it('accepts an empty quoted value', () => {
    assert.deepEqual(parse('OAuth oauth_token=""')?.parameters, [['oauth_token', '']]);
  });

  it('percent-decodes names and values', () => {
    assert.deepEqual(
      parse('OAuth oauth_callback="http%3A%2F%2Fprinter.example.com%2Fready"')?.parameters,
      [['oauth_callback', 'http://printer.example.com/ready']],
    );
  });

  it('reads a backslash quoted-pair inside a quoted value', () => {
    assert.deepEqual(parse('OAuth oauth_a="x\\"y"')?.parameters, [['oauth_a', 'x"y']]);
  });

  it('returns no parameters for the bare scheme', () => {
    assert.deepEqual(parse('OAuth'), { realm: undefined, parameters: [] });
  });

  it('returns undefined for another scheme', () => {
    assert.equal(parse('Basic dXNlcjpwYXNz'), undefined);
    assert.equal(parse('Bearer oauth_token="t"'), undefined);
  });

  it('returns undefined for a scheme that only starts with "OAuth"', () => {
    assert.equal(parse('OAuth2 oauth_token="t"'), undefined);
  });

  it('rejects a parameter given twice with parameter_rejected', () => {
    const error = assertOAuthError(
      () => parse('OAuth oauth_token="a", oauth_token="b"'),
      'parameter_rejected',
      400,
    );
    assert.deepEqual(error.advice, { oauth_parameters_rejected: 'oauth_token' });
  });

  it('rejects a parameter given twice in a long header with parameter_rejected', () => {
    const many = Array.from({ length: 40 }, (_, i) => `oauth_p${i}="v"`);
    for (const repeat of ['oauth_p3', 'oauth_p30']) {
      assertOAuthError(
        () => parse(`OAuth ${[...many, `${repeat}="again"`].join(', ')}`),
        'parameter_rejected',
      );
    }
    assert.equal(parse(`OAuth ${many.join(', ')}`)?.parameters.length, 40);
  });

  it('rejects a realm given twice with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth realm="a", realm="b"'), 'parameter_rejected', 400);
  });

  it('reads a parameter that is neither oauth_* nor realm like any other (§3.4.1.3.1)', () => {
    assert.deepEqual(parse('OAuth oauth_token="t", scope="photos%20read"')?.parameters, [
      ['oauth_token', 't'],
      ['scope', 'photos read'],
    ]);
  });

  it('accepts a name that is not oauth_* more than once, as the query does', () => {
    assert.deepEqual(parse('OAuth a="1", oauth_nonce="n", a="2"')?.parameters, [
      ['a', '1'],
      ['oauth_nonce', 'n'],
      ['a', '2'],
    ]);
  });

  it('still rejects an oauth_* name given twice after more than a scan of other names', () => {
    const others = Array.from({ length: 20 }, (_, i) => `p${i % 3}="v"`);
    const header = `OAuth oauth_nonce="a", ${others.join(', ')}, oauth_token="t", oauth_nonce="b"`;
    const error = assertOAuthError(() => parse(header), 'parameter_rejected', 400);
    assert.deepEqual(error.advice, { oauth_parameters_rejected: 'oauth_nonce' });
    assert.equal(parse(`OAuth ${others.join(', ')}, oauth_nonce="n"`)?.parameters.length, 21);
  });

  it('rejects an unterminated quoted value with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth oauth_token="abc'), 'parameter_rejected', 400);
  });

  it('rejects a backslash at the very end of an unterminated value with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth oauth_token="abc\\'), 'parameter_rejected', 400);
  });

  it('rejects a parameter without "=" with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth oauth_token'), 'parameter_rejected', 400);
  });

  it('rejects an empty parameter name with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth ="x"'), 'parameter_rejected', 400);
  });

  it('rejects a parameter name containing a quote with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth oauth"a="x"'), 'parameter_rejected', 400);
  });

  it('rejects parameters not separated by "," with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth oauth_a="1" oauth_b="2"'), 'parameter_rejected', 400);
  });

  it('rejects a malformed percent-encoding in a value with parameter_rejected', () => {
    assertOAuthError(() => parse('OAuth oauth_token="a%zz"'), 'parameter_rejected', 400);
  });
});
