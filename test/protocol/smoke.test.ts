import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { percentEncode } from '../../src/protocol/index.ts';

describe('RFC 5849 §3.6 percent encoding', () => {
  it('encodes a space as %20', () => {
    assert.equal(percentEncode('a b'), 'a%20b');
  });
});
