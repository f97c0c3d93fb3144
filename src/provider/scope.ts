/**
 * Scopes: a space-separated set of names the operator defines (policy.scopes). The spec
 * leaves the representation "not shown"; we use OAuth 2's familiar shape.
 */
import { OAuthError } from '../protocol/index.ts';
import { InputError } from './input-error.ts';
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

/*
 * Scope ceilings (docs/decisions.md "Scope ceilings"): per client, the operator's scopes it may
 * ask for and use; an empty ceiling is none (every scope the server knows).
 */

/** A ceiling the operator sets: known scope names, each once. */
export function checkScopeCeiling(scopes: readonly string[], policy: Policy): string[] {
  const unknown = scopes.filter((name) => !Object.hasOwn(policy.scopes, name));
  if (unknown.length > 0) {
    throw new InputError(
      'scopes',
      `Unknown scope: ${unknown.join(' ').slice(0, 100)}. This server's scopes: ${Object.keys(policy.scopes).join(', ')}.`,
    );
  }
  return [...new Set(scopes)];
}

/** The names of `scope` outside `ceiling`; none when there is no ceiling. */
export function outsideCeiling(scope: string, ceiling: readonly string[]): string[] {
  if (ceiling.length === 0) return [];
  return parseScope(scope).filter((name) => !ceiling.includes(name));
}

/**
 * What a token may do now: its granted scope within its client's current ceiling, so lowering
 * a ceiling reaches tokens already issued. The hot path's cost without a ceiling: one length.
 */
export function effectiveScope(granted: string, ceiling: readonly string[]): string {
  if (ceiling.length === 0) return granted;
  const names = parseScope(granted);
  const within = names.filter((name) => ceiling.includes(name));
  return within.length === names.length ? granted : within.join(' ');
}

/**
 * §2.1: the scope of a temporary credential request against the client's ceiling. The server's
 * default (nothing asked) is narrowed to the ceiling; a scope asked beyond it is refused at once
 * (403 permission_denied), naming what lies outside.
 */
export function scopeWithinCeiling(
  requested: string,
  askedFor: boolean,
  ceiling: readonly string[],
): string {
  const outside = outsideCeiling(requested, ceiling);
  if (outside.length === 0) return requested;
  const allowed = ceiling.join(', ');
  if (!askedFor) {
    const narrowed = effectiveScope(requested, ceiling);
    if (narrowed !== '') return narrowed;
    throw new OAuthError(
      'permission_denied',
      `No scope was asked for, and the server's default (${requested}) is outside this client's scopes (${allowed}): ask for one of them with the scope parameter.`,
    );
  }
  throw new OAuthError(
    'permission_denied',
    `The scope asked for goes beyond this client's scopes (${allowed}): ${outside.join(' ')} ${outside.length === 1 ? 'is' : 'are'} outside them.`,
  );
}
