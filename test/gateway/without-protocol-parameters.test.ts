import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutProtocolParameters } from '../../src/http/gateway/gateway.ts';

describe('withoutProtocolParameters: the query and form body the upstream receives', () => {
  it('keeps a query with no protocol parameter as sent, repeated names included', () => {
    assert.equal(withoutProtocolParameters('tag=a&tag=b&q=x+y'), 'tag=a&tag=b&q=x+y');
  });

  it('drops oauth_* pairs and keeps the others in order', () => {
    assert.equal(withoutProtocolParameters('a=1&oauth_token=t&b=2&oauth_nonce=n'), 'a=1&b=2');
  });

  it('drops a protocol parameter whose name is percent-encoded (§3.4.1.3.1 decodes names)', () => {
    assert.equal(withoutProtocolParameters('%6Fauth_token=t&a=%20'), 'a=%20');
  });

  it('keeps a parameter that only contains oauth_ after its start', () => {
    assert.equal(withoutProtocolParameters('x_oauth_y=1'), 'x_oauth_y=1');
  });
});
