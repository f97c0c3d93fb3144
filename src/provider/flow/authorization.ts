/**
 * §2.2: resource owner authorization. The web pages call these three: describe what is
 * asked, then approve (verifier, redirect) or deny (redirect with user_refused) that
 * description; the store re-checks the request's state as it writes the answer.
 */
import { OAuthError } from '../../protocol/index.ts';
import type { Client, Store, TemporaryCredential } from '../../store/types.ts';
import { callbackRedirect } from './callbacks.ts';
import type { Policy } from '../policy.ts';
import { effectiveScope, narrowScope, outsideCeiling } from '../scope.ts';
import { groupTypingCode, newTypingCode, newVerifier } from '../secrets.ts';

export interface AuthorizationDependencies {
  readonly store: Store;
  readonly policy: Policy;
  readonly now: () => number;
}

/** What the consent page shows: who asks, for what, and for how long at most. */
export interface AuthorizationRequest {
  readonly temporaryCredential: TemporaryCredential;
  readonly client: Client;
  /** Scope names with the plain words for each. */
  readonly scope: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  /** The default lifetime of the token in seconds, null for until revoked. */
  readonly defaultLifetime: number | null;
}

export interface Approval {
  readonly verifier: string;
  /** The scope approved (the requested one, or narrower). */
  readonly scope: string;
  /** The verifier as shown to a person (grouped for a constrained device). */
  readonly displayVerifier: string;
  /** Where to send the owner; undefined for `oob`, when the page shows the verifier. */
  readonly redirect: string | undefined;
}

/** Loads a pending request, or throws the OAuthError a page turns into a clear message. */
export async function describeAuthorization(
  deps: AuthorizationDependencies,
  token: string,
): Promise<AuthorizationRequest> {
  const temporaryCredential = await deps.store.temporaryCredentials.find(token);
  if (temporaryCredential === undefined) {
    throw new OAuthError('token_rejected', 'This authorization request is unknown.');
  }
  if (temporaryCredential.expiresAt <= deps.now()) {
    throw new OAuthError('token_expired', 'This authorization request has expired.');
  }
  switch (temporaryCredential.state) {
    case 'issued':
      break;
    case 'denied':
      throw new OAuthError('token_revoked', 'This authorization request was denied.');
    default:
      throw new OAuthError('token_used', 'This authorization request was already answered.');
  }
  const client = await deps.store.clients.find(temporaryCredential.clientKey);
  if (client === undefined)
    throw new OAuthError('token_rejected', 'The app that asked no longer exists.');
  if (client.disabled) {
    throw new OAuthError('consumer_key_rejected', 'The app that asked is disabled on this server.');
  }
  const scope = offeredScope(temporaryCredential.requestedScope, client)
    .split(' ')
    .filter((name) => name !== '')
    .map((name) => ({ name, description: deps.policy.scopes[name] ?? name }));
  return { temporaryCredential, client, scope, defaultLifetime: deps.policy.tokenLifetimeSeconds };
}

/**
 * What the owner is offered: the requested scope within the client's current ceiling (lowered
 * since the request, it narrows the offer). A request left with nothing it asked for is refused.
 */
function offeredScope(requested: string, client: Client): string {
  const offered = effectiveScope(requested, client.scopes);
  if (offered === '' && requested !== '') {
    throw new OAuthError(
      'permission_denied',
      `The app asked for ${requested}, which the operator of this server no longer lets it have.`,
    );
  }
  return offered;
}

export interface ApproveOptions {
  /** A narrower scope than requested; defaults to the requested scope. */
  readonly scope?: string | undefined;
  /** A shorter lifetime in seconds than the default; null for the default. */
  readonly lifetime?: number | null | undefined;
}

/**
 * Approves the request `describeAuthorization` described, without reading it again: the
 * store's conditional write is the check that it is still unanswered and unexpired now
 * (§2.2), atomically, so a request answered or consumed since it was described is refused.
 */
export async function approveAuthorization(
  deps: AuthorizationDependencies,
  asked: AuthorizationRequest,
  ownerId: string,
  options: ApproveOptions = {},
): Promise<Approval> {
  const { temporaryCredential, client } = asked;
  const token = temporaryCredential.token;
  const typing = client.constrainedDevice && temporaryCredential.callback === 'oob';
  const verifier = typing ? newTypingCode() : newVerifier();
  const lifetime = chooseLifetime(deps.policy.tokenLifetimeSeconds, options.lifetime);
  // A form naming a scope beyond the ceiling was not made by the consent page: refused.
  const beyond = outsideCeiling(options.scope ?? '', client.scopes);
  if (beyond.length > 0) {
    throw new OAuthError(
      'permission_denied',
      `This app may not be given ${beyond.join(' ').slice(0, 100)} on this server; nothing was approved.`,
    );
  }
  const scope = narrowScope(
    offeredScope(temporaryCredential.requestedScope, client),
    options.scope,
  );
  const done = await deps.store.temporaryCredentials.authorize(
    token,
    { ownerId, verifier: deps.store.secrets.verifierDigest(verifier), scope, lifetime },
    deps.now(),
  );
  if (!done) throw new OAuthError('token_used', 'This authorization request was already answered.');
  return {
    verifier,
    scope,
    displayVerifier: typing ? groupTypingCode(verifier) : verifier,
    redirect:
      temporaryCredential.callback === 'oob'
        ? undefined
        : callbackRedirect(temporaryCredential.callback, {
            oauth_token: token,
            oauth_verifier: verifier,
          }),
  };
}

/** Deny: the request is discarded; the client learns `oauth_problem=user_refused`. */
export async function denyAuthorization(
  deps: AuthorizationDependencies,
  asked: AuthorizationRequest,
): Promise<{ readonly redirect: string | undefined; readonly client: Client }> {
  const { temporaryCredential, client } = asked;
  const token = temporaryCredential.token;
  const done = await deps.store.temporaryCredentials.deny(token, deps.now());
  if (!done) throw new OAuthError('token_used', 'This authorization request was already answered.');
  return {
    client,
    redirect:
      temporaryCredential.callback === 'oob'
        ? undefined
        : callbackRedirect(temporaryCredential.callback, {
            oauth_token: token,
            oauth_problem: 'user_refused',
          }),
  };
}

/** The owner may shorten the lifetime, never lengthen it past the server's default. */
function chooseLifetime(
  defaultLifetime: number | null,
  chosen: number | null | undefined,
): number | null {
  if (chosen === undefined || chosen === null || !(chosen > 0)) return defaultLifetime;
  const whole = Math.floor(chosen);
  return defaultLifetime === null ? whole : Math.min(whole, defaultLifetime);
}
