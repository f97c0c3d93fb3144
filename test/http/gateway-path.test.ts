import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeGatewayPath } from '../../src/http/gateway/path.ts';
import { matchRule } from '../../src/http/gateway/rules.ts';
import { OAuthError } from '../../src/protocol/index.ts';

describe('RFC 3986 §6.2.2 the gateway path normalization', () => {
  const cases: [string, string][] = [
    ['/', '/'],
    ['/a/b.json', '/a/b.json'],
    ['/a/b?x=%2F', '/a/b'],
    ['/%61dmin/%7e%2D%5f%2e', '/admin/~-_.'],
    ['/caf%c3%a9', '/caf%C3%A9'],
    ['/100%25', '/100%25'],
    ['/a%25zz/%25', '/a%25zz/%25'],
    ['/a/./b/../c', '/a/c'],
    ['/a/b/..', '/a/'],
    ['/a/b/.', '/a/b/'],
    ['/../../a', '/a'],
    ['//a///b/', '/a/b/'],
    ['/a..b/.c', '/a..b/.c'],
    ['http://example.com/a/./b?q', '/a/b'],
    ['http://example.com', '/'],
    // Characters a path cannot carry as they are, encoded once, so no URL parser changes it.
    ['/a"b/{c}|d', '/a%22b/%7Bc%7D%7Cd'],
    ['/a[b]/<c>/`^', '/a%5Bb%5D/%3Cc%3E/%60%5E'],
    ['/caf\u00c3\u00a9', '/caf%C3%A9'],
    ['/\u{1F600}', '/%F0%9F%98%80'],
  ];
  for (const [target, expected] of cases) {
    it(`normalizes ${target} to ${expected}`, () => {
      assert.equal(normalizeGatewayPath(target), expected);
      // A fixed point of a URL parser: the upstream reads the path the rules matched.
      assert.equal(new URL(expected, 'http://upstream.invalid').pathname, expected);
    });
  }

  for (const target of [
    '/a%2Fb',
    '/a%5cb',
    '/a\\b',
    '/a%00',
    '/a;jsessionid=1/b',
    '/a%3bb',
    '/%2e%2e/a',
    '/a/%2E',
    '/a/.%2e/b',
    '/a%',
    '/a%4',
    '/a%g1',
    '/%2561dmin',
    '/a/%252e%252e/b',
    '/a%252Fb',
    '/a%25%32%66b',
    '*',
    '/public/..#',
    '/a#b',
    '/a?b#c',
    '/\ud800',
  ]) {
    it(`refuses ${JSON.stringify(target)} with 400 parameter_rejected`, () => {
      assert.throws(
        () => normalizeGatewayPath(target),
        (error: unknown) =>
          error instanceof OAuthError &&
          error.status === 400 &&
          error.problem === 'parameter_rejected',
      );
    });
  }
});

describe('Gateway rules and case: case never loosens a rule', () => {
  const rules = [
    { path: '/public/*', access: 'public' as const },
    { path: '/Photos/*' },
    { path: '/photos/*', scope: 'admin' },
    { path: '/admin/*', scope: 'write' },
  ];
  it('a token rule meets its path in any case', () => {
    assert.equal(matchRule(rules, 'GET', '/ADMIN/x').scope, 'write');
  });
  it('a public rule meets only the exact case', () => {
    assert.equal(matchRule(rules, 'GET', '/public/x').access, 'public');
    assert.equal(matchRule(rules, 'GET', '/Public/x').access, 'token');
  });
  it('where the exact and the any-case readings differ, both apply', () => {
    assert.equal(matchRule(rules, 'GET', '/photos/x').scope, 'admin');
  });
});
