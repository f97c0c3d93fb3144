import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  baseStringUri,
  normalizeParameters,
  signatureBaseString,
} from '../../src/protocol/index.ts';
import { assertOAuthError } from './assert-oauth-error.ts';

describe('RFC 5849 §3.4.1.2 base string URI', () => {
  it('lowercases the scheme and the host', () => {
    assert.equal(
      baseStringUri('HTTPS', 'Photos.Example.NET', '/a'),
      'https://photos.example.net/a',
    );
  });

  it('keeps the case and the encoding of the path', () => {
    assert.equal(baseStringUri('http', 'example.com', '/R%20v/X'), 'http://example.com/R%20v/X');
  });

  it('omits the default port 80 for http', () => {
    assert.equal(baseStringUri('http', 'example.com:80', '/'), 'http://example.com/');
  });

  it('omits the default port 443 for https', () => {
    assert.equal(baseStringUri('https', 'example.com:443', '/'), 'https://example.com/');
  });

  it('keeps port 443 for http and port 80 for https', () => {
    assert.equal(baseStringUri('http', 'example.com:443', '/'), 'http://example.com:443/');
    assert.equal(baseStringUri('https', 'example.com:80', '/'), 'https://example.com:80/');
  });

  it('keeps any other port', () => {
    assert.equal(baseStringUri('http', 'example.com:8080', '/'), 'http://example.com:8080/');
  });

  it('reads a port with leading zeros as the number it is', () => {
    assert.equal(baseStringUri('http', 'example.com:0080', '/'), 'http://example.com/');
    assert.equal(baseStringUri('http', 'example.com:08080', '/'), 'http://example.com:8080/');
  });

  it('drops an empty port', () => {
    assert.equal(baseStringUri('http', 'example.com:', '/'), 'http://example.com/');
  });

  it('keeps an IPv6 literal host with its port', () => {
    assert.equal(baseStringUri('http', '[2001:DB8::1]:8080', '/x'), 'http://[2001:db8::1]:8080/x');
  });

  it('keeps an IPv6 literal host without a port whole', () => {
    assert.equal(baseStringUri('https', '[::1]', '/'), 'https://[::1]/');
  });

  it('omits the default port after an IPv6 literal host', () => {
    assert.equal(baseStringUri('https', '[::1]:443', '/'), 'https://[::1]/');
  });

  it('leaves out the query', () => {
    assert.equal(baseStringUri('http', 'example.com', '/a?b=c'), 'http://example.com/a');
  });

  it('leaves out the fragment', () => {
    assert.equal(baseStringUri('http', 'example.com', '/a#f?g'), 'http://example.com/a');
  });

  it('writes an empty path as "/"', () => {
    assert.equal(baseStringUri('http', 'example.com', ''), 'http://example.com/');
    assert.equal(baseStringUri('http', 'example.com', '?q=1'), 'http://example.com/');
  });

  it('rejects a port that is not a number with parameter_rejected', () => {
    assertOAuthError(() => baseStringUri('http', 'example.com:8o', '/'), 'parameter_rejected', 400);
  });
});

describe('RFC 5849 §3.4.1.3.2 parameter normalization', () => {
  it('sorts by name', () => {
    assert.equal(
      normalizeParameters([
        ['b', '1'],
        ['c', '0'],
        ['a', '2'],
      ]),
      'a=2&b=1&c=0',
    );
  });

  it('sorts pairs with the same name by value', () => {
    assert.equal(
      normalizeParameters([
        ['a', 'b'],
        ['a', 'a'],
        ['a', 'B'],
      ]),
      'a=B&a=a&a=b',
    );
  });

  it('compares names before values, so a shorter name sorts first', () => {
    // Comparing whole "name=value" strings would put "a-=x" first ("-" < "=").
    assert.equal(
      normalizeParameters([
        ['a-', 'x'],
        ['a', 'z'],
      ]),
      'a=z&a-=x',
    );
  });

  it('sorts uppercase before lowercase (byte order, not locale order)', () => {
    assert.equal(
      normalizeParameters([
        ['a', '1'],
        ['Z', '1'],
      ]),
      'Z=1&a=1',
    );
  });

  it('sorts the encoded bytes, so non-ASCII (%XX) sorts before letters', () => {
    assert.equal(
      normalizeParameters([
        ['z', '1'],
        ['é', '1'],
        ['~', '1'],
      ]),
      '%C3%A9=1&z=1&~=1',
    );
  });

  it('percent-encodes names and values with %20 for a space', () => {
    assert.equal(normalizeParameters([['a b', 'c+d']]), 'a%20b=c%2Bd');
  });

  it('writes "=" after a name whose value is empty', () => {
    assert.equal(normalizeParameters([['c2', '']]), 'c2=');
  });

  it('keeps identical pairs twice', () => {
    assert.equal(
      normalizeParameters([
        ['a', '1'],
        ['a', '1'],
      ]),
      'a=1&a=1',
    );
  });

  it('normalizes no parameters to the empty string', () => {
    assert.equal(normalizeParameters([]), '');
  });
});

describe('RFC 5849 §3.4.1.1 signature base string', () => {
  const target = { method: 'get', scheme: 'http', host: 'example.com', path: '/a b' };

  it('uppercases the HTTP method', () => {
    assert.match(signatureBaseString(target, []), /^GET&/);
  });

  it('percent-encodes a custom method', () => {
    assert.match(signatureBaseString({ ...target, method: 'my#verb' }, []), /^MY%23VERB&/);
  });

  it('joins method, encoded URI and encoded parameters with "&"', () => {
    assert.equal(
      signatureBaseString({ ...target, path: '/p' }, [
        ['b', 'x y'],
        ['a', '='],
      ]),
      'GET&http%3A%2F%2Fexample.com%2Fp&a%3D%253D%26b%3Dx%2520y',
    );
  });

  it('ends with "&" and nothing more when there are no parameters', () => {
    assert.equal(
      signatureBaseString({ ...target, path: '/' }, []),
      'GET&http%3A%2F%2Fexample.com%2F&',
    );
  });

  it('gives each target its own method and URI, however its parts run together', () => {
    // Targets whose parts joined together read alike still get each its own method and URI.
    const targets = [
      { method: 'GET', scheme: 'http', host: 'a.example:81', path: '/p' },
      { method: 'GET', scheme: 'http', host: 'a.example:8', path: '1/p' },
      { method: 'GETH', scheme: 'ttp', host: 'a.example:81', path: '/p' },
      { method: 'POST', scheme: 'http', host: 'a.example:81', path: '/p' },
    ];
    const first = targets.map((t) => signatureBaseString(t, []));
    const again = targets.map((t) => signatureBaseString(t, []));
    assert.deepEqual(again, first);
    assert.deepEqual(first, [
      'GET&http%3A%2F%2Fa.example%3A81%2Fp&',
      'GET&http%3A%2F%2Fa.example%3A81%2Fp&',
      'GETH&ttp%3A%2F%2Fa.example%3A81%2Fp&',
      'POST&http%3A%2F%2Fa.example%3A81%2Fp&',
    ]);
  });
});
