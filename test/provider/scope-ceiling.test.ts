// The rules of scope ceilings (src/provider/scope.ts, docs/decisions.md "Scope ceilings"): a
// token's effective scope is its grant within its client's current ceiling, never more than
// either; the operator too issues tokens within the ceiling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { OAuthError } from '../../src/protocol/index.ts';
import { createProvider, InputError } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { effectiveScope, scopeWithinCeiling } from '../../src/provider/scope.ts';
import { createSqliteStore } from '../../src/store/index.ts';

const names = fc.constantFrom(...(['read', 'write', 'admin', 'photos'] as string[]));
const scopeText = fc.uniqueArray(names, { maxLength: 4 }).map((list) => list.join(' '));
const ceiling = fc.uniqueArray(names, { maxLength: 4 });

describe('effective scope: the grant within the ceiling', () => {
  it('is the grant itself without a ceiling', () => {
    fc.assert(fc.property(scopeText, (granted) => effectiveScope(granted, []) === granted));
  });

  it('is never more than the grant, nor outside the ceiling, and keeps all of both it can', () => {
    fc.assert(
      fc.property(scopeText, ceiling, (granted, allowed) => {
        fc.pre(allowed.length > 0);
        const effective = effectiveScope(granted, allowed).split(' ').filter(Boolean);
        const grantedNames = granted.split(' ').filter(Boolean);
        assert.ok(effective.every((name) => grantedNames.includes(name)));
        assert.ok(effective.every((name) => allowed.includes(name)));
        assert.deepEqual(
          effective,
          grantedNames.filter((name) => allowed.includes(name)),
        );
      }),
    );
  });

  it('refuses a requested scope beyond the ceiling with 403 permission_denied, never anything else', () => {
    fc.assert(
      fc.property(scopeText, ceiling, fc.boolean(), (requested, allowed, asked) => {
        try {
          const kept = scopeWithinCeiling(requested, asked, allowed);
          assert.equal(
            kept,
            asked || allowed.length === 0 ? requested : effectiveScope(requested, allowed),
          );
        } catch (error) {
          assert.ok(error instanceof OAuthError);
          assert.equal(error.status, 403);
          assert.equal(error.problem, 'permission_denied');
        }
      }),
    );
  });
});

describe('tokens the operator issues (latchkey tokens issue)', () => {
  let provider: Provider;
  before(() => {
    provider = createProvider({ store: createSqliteStore({ path: ':memory:' }), ownsStore: true });
  });
  after(() => provider.close());

  it('are issued within the ceiling: beyond it refused, the default narrowed to it', async () => {
    const client = await provider.clients.register({ name: 'Reader', scopes: ['read'] });
    const owner = await provider.owners.create('reader-owner', 'correct horse battery');
    await assert.rejects(
      provider.tokens.issue({ clientKey: client.key, ownerId: owner.id, scope: 'read write' }),
      (error: unknown) =>
        error instanceof InputError &&
        error.field === 'scope' &&
        /write is outside/.test(error.message),
    );
    const issued = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    assert.equal(issued.scope, 'read');
  });
});
