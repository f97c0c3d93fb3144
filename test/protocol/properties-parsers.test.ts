// Bad input becomes an OAuthError, never a crash: the parsers fed arbitrary strings either
// return a value or throw OAuthError (STYLE.md 6.3), lone surrogates and stray "%" included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  baseStringUri,
  collectParameters,
  OAuthError,
  parseAuthorizationHeader,
  parseFormUrlEncoded,
  percentDecode,
} from '../../src/protocol/index.ts';

/** Characters the parsers treat specially, plus ordinary, non-ASCII and lone-surrogate ones. */
const special = fc.constantFrom(
  ...'%=&+,;" \t\\\r\n:[]/?#',
  ...'0123456789abcdefABCDEFgG',
  'oauth_',
  'realm',
  'OAuth ',
  'é',
  '😀',
  '\uD800',
  '\uDFFF',
  '\u0000',
);
const messy = fc.oneof(
  fc.string({ unit: special, maxLength: 60 }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
);
const headerLike = fc.oneof(
  messy,
  messy.map((s) => `OAuth ${s}`),
);
const contentType = fc.oneof(
  fc.constant(undefined),
  fc.constant('application/x-www-form-urlencoded; charset=UTF-8'),
  messy,
);

/** Runs the parser; true when it returned or threw an OAuthError. */
function onlyOAuthErrors(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch (error) {
    assert.ok(error instanceof OAuthError, `threw ${String(error)}`);
    return true;
  }
}

describe('The protocol parsers on arbitrary input', () => {
  it('percentDecode returns text or throws OAuthError', () => {
    fc.assert(
      fc.property(messy, (s) => onlyOAuthErrors(() => percentDecode(s))),
      {
        numRuns: 500,
      },
    );
  });

  it('parseFormUrlEncoded returns pairs or throws OAuthError', () => {
    fc.assert(
      fc.property(messy, (s) => onlyOAuthErrors(() => parseFormUrlEncoded(s))),
      {
        numRuns: 500,
      },
    );
  });

  it('parseAuthorizationHeader returns a header, undefined, or throws OAuthError', () => {
    fc.assert(
      fc.property(headerLike, (s) => onlyOAuthErrors(() => parseAuthorizationHeader(s))),
      { numRuns: 500 },
    );
  });

  it('collectParameters returns parameters or throws OAuthError', () => {
    fc.assert(
      fc.property(
        fc.option(headerLike, { nil: undefined }),
        fc.option(messy, { nil: undefined }),
        fc.option(messy, { nil: undefined }),
        contentType,
        (authorization, query, body, type) =>
          onlyOAuthErrors(() =>
            collectParameters({ authorization, query, body, contentType: type }),
          ),
      ),
      { numRuns: 500 },
    );
  });

  it('baseStringUri returns a URI or throws OAuthError for any Host header', () => {
    fc.assert(
      fc.property(fc.constantFrom('http', 'https', 'HTTP'), messy, messy, (scheme, host, path) =>
        onlyOAuthErrors(() => baseStringUri(scheme, host, path)),
      ),
      { numRuns: 500 },
    );
  });
});
