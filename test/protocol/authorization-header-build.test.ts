import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildAuthorizationHeader,
  parseAuthorizationHeader,
  printable,
} from '../../src/protocol/index.ts';
import { walkthroughRequest } from '../vectors/rfc5849.ts';

const parse = (value: string) => parseAuthorizationHeader(value);

describe('RFC 5849 §3.5.1 Authorization header building', () => {
  it('uses the scheme name "OAuth" exactly', () => {
    assert.match(buildAuthorizationHeader([['oauth_token', 't']]), /^OAuth /);
  });

  it('writes each parameter as name="value", separated by ", "', () => {
    assert.equal(
      buildAuthorizationHeader([
        ['oauth_a', '1'],
        ['oauth_b', ''],
      ]),
      'OAuth oauth_a="1", oauth_b=""',
    );
  });

  it('percent-encodes names and values', () => {
    assert.equal(
      buildAuthorizationHeader([['oauth_signature', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=']]),
      'OAuth oauth_signature="tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D"',
    );
  });

  it('puts the realm first, as a quoted-string', () => {
    assert.equal(
      buildAuthorizationHeader([['oauth_token', 't']], 'a "b" \\c'),
      'OAuth realm="a \\"b\\" \\\\c", oauth_token="t"',
    );
  });

  it('writes the bare scheme when there is nothing to send', () => {
    assert.equal(buildAuthorizationHeader([]), 'OAuth');
  });

  it('builds the header of the RFC 5849 §1.2 token request', () => {
    const request = walkthroughRequest('token request');
    assert.equal(
      buildAuthorizationHeader(request.protocolParameters, 'Photos'),
      request.authorization,
    );
  });

  it('gives back realm and parameters when its output is parsed', () => {
    const parameters = [
      ['oauth_callback', 'http://printer.example.com/ready?x=1&y=é'],
      ['oauth_nonce', ' +%"\\'],
    ] as const;
    assert.deepEqual(parse(buildAuthorizationHeader(parameters, 'r "q" \\')), {
      realm: 'r "q" \\',
      parameters,
    });
  });
});

describe('printable names in error messages', () => {
  it('replaces characters outside printable ASCII with "?"', () => {
    assert.equal(printable('a\nb\u00e9'), 'a?b?');
  });

  it('cuts names longer than 64 characters', () => {
    assert.equal(printable('x'.repeat(100)), `${'x'.repeat(64)}…`);
  });
});
