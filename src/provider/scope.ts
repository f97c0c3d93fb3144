/**
 * Scopes: a space-separated set of names the operator defines (policy.scopes). The spec
 * leaves the representation "not shown"; we use OAuth 2's familiar shape.
 */
import { OAuthError } from '../protocol/index.ts';
import type { Policy } from './policy.ts';

export function parseScope(scope: string): string[] {
  return [...new Set(scope.split(' ').filter((part) => part !== ''))];
}

/** The scope a client asked for, checked against the known scopes; '' means the default. */
export function checkRequestedScope(requested: string | undefined, policy: Policy): string {
  if (requested === undefined || requested.trim() === '') return policy.defaultScope;
  const names = parseScope(requested);
  const unknown = names.filter((name) => !Object.hasOwn(policy.scopes, name));
  if (unknown.length > 0) {
    throw new OAuthError(
      'parameter_rejected',
      `Unknown scope: ${unknown.join(' ').slice(0, 100)}. Known scopes: ${Object.keys(policy.scopes).join(', ')}.`,
      { advice: { oauth_parameters_rejected: 'scope' } },
    );
  }
  return names.join(' ');
}

/** The owner may grant less than was asked, never more. */
export function narrowScope(requested: string, approved: string | undefined): string {
  if (approved === undefined) return requested;
  const allowed = new Set(parseScope(requested));
  return parseScope(approved)
    .filter((name) => allowed.has(name))
    .join(' ');
}

export function scopeIncludes(granted: string, required: string): boolean {
  const have = new Set(parseScope(granted));
  return parseScope(required).every((name) => have.has(name));
}
