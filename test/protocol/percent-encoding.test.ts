import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { percentDecode, percentEncode, percentEncodeBytes } from '../../src/protocol/index.ts';
import { assertOAuthError } from './assert-oauth-error.ts';

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

describe('RFC 5849 §3.6 percent encoding', () => {
  it('keeps every unreserved character (ALPHA, DIGIT, "-", ".", "_", "~") as it is', () => {
    assert.equal(percentEncode(UNRESERVED), UNRESERVED);
  });

  it('encodes every other ASCII character as %XX', () => {
    for (let code = 0; code < 128; code++) {
      const c = String.fromCharCode(code);
      if (UNRESERVED.includes(c)) continue;
      assert.equal(percentEncode(c), '%' + code.toString(16).toUpperCase().padStart(2, '0'));
    }
  });

  it('encodes a space as %20, never "+"', () => {
    assert.equal(percentEncode('a b'), 'a%20b');
  });

  it('writes the hex digits in uppercase', () => {
    assert.equal(percentEncode('\n:ÿ'), '%0A%3A%C3%BF');
  });

  it('encodes text as UTF-8 first, multibyte characters included', () => {
    assert.equal(percentEncode('é€😀'), '%C3%A9%E2%82%AC%F0%9F%98%80');
  });

  it('encodes a lone surrogate as the UTF-8 of U+FFFD, as TextEncoder does', () => {
    assert.equal(percentEncode('a\uD800b'), 'a%EF%BF%BDb');
  });

  it('encodes "+" as %2B', () => {
    assert.equal(percentEncode('+'), '%2B');
  });

  it('encodes "*" as %2A, unlike encodeURIComponent', () => {
    assert.equal(percentEncode('*'), '%2A');
  });

  it('keeps "~" unencoded', () => {
    assert.equal(percentEncode('~'), '~');
  });

  it('encodes "!", "\'", "(" and ")", unlike encodeURIComponent', () => {
    assert.equal(percentEncode("!'()"), '%21%27%28%29');
  });

  it('encodes the empty string as the empty string', () => {
    assert.equal(percentEncode(''), '');
  });

  it('encodes octets that are not text without a UTF-8 step', () => {
    assert.equal(percentEncodeBytes(new Uint8Array([0x00, 0x41, 0x7e, 0x80, 0xff])), '%00A~%80%FF');
  });
});

describe('RFC 5849 §3.6 percent decoding', () => {
  it('decodes %XX sequences to UTF-8 text', () => {
    assert.equal(percentDecode('a%20b%C3%A9%F0%9F%98%80'), 'a bé😀');
  });

  it('accepts lowercase hex digits', () => {
    assert.equal(percentDecode('%c3%a9%2b'), 'é+');
  });

  it('leaves text without "%" as it is', () => {
    assert.equal(percentDecode('abc~!*'), 'abc~!*');
  });

  it('does not read "+" as a space (that is form decoding, not §3.6)', () => {
    assert.equal(percentDecode('a+b%20c'), 'a+b c');
  });

  it('passes characters that needed no encoding through, even non-ASCII ones', () => {
    assert.equal(percentDecode('é%20ü'), 'é ü');
  });

  it('rejects a "%" at the end with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('abc%'), 'parameter_rejected', 400);
  });

  it('rejects a "%" followed by one hex digit with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('abc%2'), 'parameter_rejected', 400);
  });

  it('rejects a "%" followed by non-hex characters with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('%zz'), 'parameter_rejected', 400);
    assertOAuthError(() => percentDecode('%G0'), 'parameter_rejected', 400);
    assertOAuthError(() => percentDecode('%0g'), 'parameter_rejected', 400);
  });

  it('rejects an octet that starts no UTF-8 character with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('%FF'), 'parameter_rejected', 400);
  });

  it('rejects a truncated UTF-8 sequence with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('%C3'), 'parameter_rejected', 400);
  });

  it('rejects an overlong UTF-8 encoding with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('%C0%AF'), 'parameter_rejected', 400);
  });

  it('rejects an encoded UTF-16 surrogate with parameter_rejected', () => {
    assertOAuthError(() => percentDecode('%ED%A0%80'), 'parameter_rejected', 400);
  });

  it('keeps a leading byte order mark rather than dropping it', () => {
    assert.equal(percentDecode('%EF%BB%BFx'), '\uFEFFx');
  });
});
