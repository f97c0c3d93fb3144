// RFC 5849 §3.5.1: building an Authorization header and parsing it again loses nothing,
// for any oauth_* names, any values and any realm.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { buildAuthorizationHeader, parseAuthorizationHeader } from '../../src/protocol/index.ts';
import type { Parameter } from '../../src/protocol/index.ts';

const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
const parameters = fc.uniqueArray(
  fc.tuple(
    text.map((s) => `oauth_${s}`),
    text,
  ) as fc.Arbitrary<Parameter>,
  { selector: ([name]) => name },
);

describe('RFC 5849 §3.5.1 Authorization header round trip', () => {
  it('parses what it builds back to the same parameters, in order', () => {
    fc.assert(
      fc.property(parameters, (pairs) => {
        assert.deepEqual(parseAuthorizationHeader(buildAuthorizationHeader(pairs)), {
          realm: undefined,
          parameters: pairs,
        });
      }),
    );
  });

  it('parses what it builds back to the same realm', () => {
    fc.assert(
      fc.property(text, parameters, (realm, pairs) => {
        assert.deepEqual(parseAuthorizationHeader(buildAuthorizationHeader(pairs, realm)), {
          realm,
          parameters: pairs,
        });
      }),
    );
  });
});
