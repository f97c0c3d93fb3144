import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFormUrlEncoded } from '../../src/protocol/index.ts';
import { assertOAuthError } from './assert-oauth-error.ts';

describe('RFC 5849 §3.4.1.3.1 application/x-www-form-urlencoded parsing', () => {
  it('splits pairs on "&" and the name from the value on "="', () => {
    assert.deepEqual(parseFormUrlEncoded('a=1&b=2'), [
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('reads "+" as a space', () => {
    assert.deepEqual(parseFormUrlEncoded('a+b=2+q'), [['a b', '2 q']]);
  });

  it('reads an encoded "+" (%2B) as a plus sign', () => {
    assert.deepEqual(parseFormUrlEncoded('a=1%2B1'), [['a', '1+1']]);
  });

  it('percent-decodes names and values', () => {
    assert.deepEqual(parseFormUrlEncoded('c%40=%3D%253D'), [['c@', '=%3D']]);
  });

  it('keeps an empty value after "="', () => {
    assert.deepEqual(parseFormUrlEncoded('a='), [['a', '']]);
  });

  it('keeps a name without "=" as a pair with an empty value', () => {
    assert.deepEqual(parseFormUrlEncoded('c2'), [['c2', '']]);
  });

  it('splits on the first "=" only', () => {
    assert.deepEqual(parseFormUrlEncoded('a=b=c'), [['a', 'b=c']]);
  });

  it('keeps repeated names as separate pairs, in order', () => {
    assert.deepEqual(parseFormUrlEncoded('a3=a&a3=2+q'), [
      ['a3', 'a'],
      ['a3', '2 q'],
    ]);
  });

  it('skips empty elements', () => {
    assert.deepEqual(parseFormUrlEncoded('&a=1&&b=2&'), [
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('returns no pairs for the empty string', () => {
    assert.deepEqual(parseFormUrlEncoded(''), []);
  });

  it('keeps a pair whose name is empty', () => {
    assert.deepEqual(parseFormUrlEncoded('=x'), [['', 'x']]);
  });

  it('rejects a malformed "%" with parameter_rejected', () => {
    assertOAuthError(() => parseFormUrlEncoded('a=100%'), 'parameter_rejected', 400);
  });

  it('rejects octets that are not UTF-8 with parameter_rejected', () => {
    assertOAuthError(() => parseFormUrlEncoded('a=%E9t%E9'), 'parameter_rejected', 400);
  });
});
