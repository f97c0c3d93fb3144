// The one loopback check (src/provider/loopback.ts), asked of URL hosts (http callbacks,
// OpenID Connect issuers) and of socket addresses (the secure-channel rule, /metrics). The
// table includes the spellings on which the three earlier checks disagreed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopback } from '../../src/provider/index.ts';
import { issuerProblem } from '../../src/provider/accounts/identity.ts';

const table: readonly (readonly [string | undefined, boolean, string])[] = [
  ['127.0.0.1', true, 'IPv4 loopback'],
  ['127.255.255.254', true, 'anywhere in 127.0.0.0/8'],
  ['127.0.0.0', true, 'the block itself'],
  ['::1', true, 'IPv6 loopback'],
  ['0:0:0:0:0:0:0:1', true, 'IPv6 loopback written in full'],
  ['[::1]', true, "a URL's bracketed IPv6 host"],
  ['::ffff:127.0.0.1', true, 'IPv4-mapped, as a dual-stack socket reports it'],
  ['::FFFF:127.0.0.2', true, 'IPv4-mapped in upper case'],
  ['[::ffff:7f00:1]', true, 'IPv4-mapped as a URL writes it'],
  ['localhost', true, 'the name localhost (RFC 6761)'],
  ['LocalHost', true, 'in any case'],
  ['localhost.', true, 'with the final dot'],
  ['app.localhost', true, 'a name under localhost'],
  ['128.0.0.1', false, 'outside 127.0.0.0/8'],
  ['10.0.0.1', false, 'a private address'],
  ['::2', false, 'another IPv6 address'],
  ['::ffff:10.0.0.1', false, 'a mapped address outside 127.0.0.0/8'],
  ['127.example.com', false, 'a name that starts like a loopback address'],
  ['localhost.example.com', false, 'a name that merely contains localhost'],
  ['notlocalhost', false, 'a name that ends like localhost'],
  ['.localhost', false, 'not a name'],
  ['0.0.0.0', false, 'the unspecified address'],
  ['::', false, 'the unspecified IPv6 address'],
  ['', false, 'nothing'],
  [undefined, false, 'no address (an injected request)'],
];

describe('isLoopback: 127.0.0.0/8, ::1, IPv4-mapped 127.x, localhost', () => {
  for (const [host, expected, why] of table) {
    it(`${JSON.stringify(host)} is ${expected ? '' : 'not '}loopback (${why})`, () => {
      assert.equal(isLoopback(host), expected);
    });
  }

  it('is what an http issuer is held to', () => {
    assert.equal(issuerProblem('http://[::ffff:127.0.0.1]:9000/'), undefined);
    assert.equal(issuerProblem('http://localhost.:9000/'), undefined);
    assert.match(issuerProblem('http://127.example.com/') ?? '', /https/);
  });
});
