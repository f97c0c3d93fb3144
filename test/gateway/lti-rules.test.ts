// Gateway rules with `lti: true`: checked at start-up, so a launch path cannot also claim a
// token, a scope or a body hash, and a rule's `lti` is a boolean.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/cli/config/config.ts';
import { matchRule, parseGatewayRules } from '../../src/http/gateway/rules.ts';
import type { GatewayRule } from '../../src/http/gateway/rules.ts';

describe('Gateway rules: LTI launch paths', () => {
  it('resolves a launch path as two-legged', () => {
    const rules: GatewayRule[] = [{ path: '/lti/*', methods: ['POST'], lti: true }];
    parseGatewayRules(rules);
    assert.deepEqual(matchRule(rules, 'POST', '/lti/launch'), {
      access: 'client',
      scope: undefined,
      requireBodyHash: false,
      lti: true,
    });
    assert.equal(matchRule(rules, 'GET', '/lti/launch').lti, false);
  });

  it('refuses a launch path with a token, a scope, a body hash or a non-boolean lti', () => {
    const bad = [
      { path: '/lti', lti: true, access: 'token' },
      { path: '/lti', lti: true, access: 'public' },
      { path: '/lti', lti: true, scope: 'read' },
      { path: '/lti', lti: true, requireBodyHash: true },
      { path: '/lti', lti: 'yes' },
    ] as unknown as GatewayRule[];
    for (const rule of bad) assert.throws(() => parseGatewayRules([rule]), TypeError);
    parseGatewayRules([{ path: '/lti', lti: true, access: 'client' }]);
  });

  it('reads an lti rule from the configuration, and refuses a bad one with a message', () => {
    const env = (rules: unknown) => ({
      LATCHKEY_UPSTREAM: 'http://127.0.0.1:3000',
      LATCHKEY_GATEWAY_RULES: JSON.stringify(rules),
    });
    const config = loadConfig({ env: env([{ path: '/launch', methods: ['POST'], lti: true }]) });
    assert.deepEqual(config.gateway.rules, [{ path: '/launch', methods: ['POST'], lti: true }]);
    assert.throws(
      () => loadConfig({ env: env([{ path: '/launch', lti: true, scope: 'read' }]) }),
      /LTI launch path/,
    );
  });
});
