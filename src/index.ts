/**
 * Latchkey's public API (`import … from 'latchkey'`), listed name by name: what an embedder
 * builds a server from. Everything else under src/ is internal and may change in any
 * release. The client SDK and the protocol core also have entries of their own
 * (`latchkey/client`, `latchkey/protocol`), and the middleware `latchkey/middleware`.
 *
 * Loading this module loads neither `pg` nor `ioredis`: {@link openStore} imports them when a
 * `postgres://` URL asks for them.
 *
 * @example
 * const store = await openStore(process.env.LATCHKEY_DATABASE ?? 'data/latchkey.db');
 * const provider = createProvider({ store });
 * const app = await buildServer({ provider });
 * await app.listen({ port: 8080 });
 */

// First: on a Node too old for the package, one line naming the Node it needs
// (src/node-version.ts), before any module that would fail on it is evaluated.
import './node-version.ts';

// The provider: the one door to the rules (docs/architecture.md).

/** Creates the provider on a store: every rule of the service behind one object. */
export { createProvider } from './provider/provider.ts';
export type {
  /** The provider's operations: the flow endpoints, verification, clients, owners, tokens. */
  Provider,
  /** What createProvider takes: the store, policy overrides, a clock. */
  ProviderOptions,
  /** A protected resource's demands: a token or not, a scope, a body hash. */
  ResourceOptions,
  /** A Basic LTI 1.1 launch, verified. */
  VerifiedLtiLaunch,
} from './provider/provider.ts';
/** The rules an operator may tune, with their documented defaults. */
export { defaultPolicy } from './provider/policy.ts';
export type { Policy, PolicyOverrides, SignInLimits } from './provider/policy.ts';
/** What verification takes (a framework-free request) and gives (the verified caller). */
export type { IncomingRequest, VerifiedRequest } from './provider/request.ts';
export type { CallerOwner, VerifiedCaller, VerifiedResourceRequest } from './provider/caller.ts';
/** Where owners sign in: Latchkey's accounts, an OpenID Connect provider, a login app. */
export type { IdentityOptions } from './provider/accounts/identity.ts';
export type { ExternalIdentity } from './provider/accounts/owners.ts';
export type { ClientRegistration } from './provider/clients/clients.ts';
export type { TokenIssue } from './provider/flow/tokens.ts';
/** An owner's live token as `provider.tokens.ofOwner` lists it: never its secret. */
export type { OwnedToken } from './provider/flow/owned-tokens.ts';
export type {
  Approval,
  ApproveOptions,
  AuthorizationRequest,
} from './provider/flow/authorization.ts';
/** What `provider.events` announces: each event's name and payload (docs/events.md). */
export type {
  ProviderEventName,
  ProviderEventPayloads,
  ProviderEvents,
} from './provider/events.ts';
export type { Connection } from './provider/flow/connections.ts';
export type { LtiLaunch } from './provider/lti/lti-launch.ts';
export type { ExportOptions, ExportedRecord } from './provider/transfer/export.ts';
export type { ImportOptions, ImportSession } from './provider/transfer/import.ts';
/** Refusals of the provider's operations: bad input (422), nothing there (404), a login refused. */
export { InputError, NotFoundError } from './provider/input-error.ts';
export { LoginRefusedError } from './provider/accounts/logins.ts';

// The records the provider hands out, and the stores that keep them.

export type { Client, Owner, TemporaryCredential, TokenCredential } from './store/records.ts';
/** The store contract, for a store adapter of your own (docs/architecture.md). */
export type { Store } from './store/types.ts';
/** A store that cannot answer (503) and a key or username already taken. */
export { StoreConflictError, StoreUnavailableError } from './store/types.ts';
/** Opens SQLite for a path, PostgreSQL (with Redis when given) for a `postgres://` URL. */
export { openStore } from './store/open.ts';
export type { OpenStoreOptions } from './store/open.ts';
/**
 * A secret sealed under a key not configured (or altered): a store outage, 503; and the
 * refusal of openStore to open a database sealed under a key it was not given.
 */
export { MissingSealingKeyError, SealedValueError } from './store/sealing.ts';
/** The embedded SQLite store on a file (or `:memory:`). */
export { createSqliteStore } from './store/sqlite/index.ts';
export type { SqliteStoreOptions } from './store/sqlite/index.ts';

// HTTP: the server, its pages, the gateway, and verification inside your own server.

/** The Fastify app: flow endpoints, /api/me, the advertisement, metrics, health, gateway. */
export { buildApp } from './http/app.ts';
export type { BuildOptions, PagesContext } from './http/app.ts';
/** buildApp with the people-facing pages registered. */
export { buildServer } from './server.ts';
export type { AppOptions, FlowPaths } from './http/options.ts';
export type { GatewayOptions, IdentityHeaderNames } from './http/gateway/gateway.ts';
export type { GatewayAccess, GatewayRule } from './http/gateway/rules.ts';
/** The pages (sign-in, consent, connected apps, developer portal) as a Fastify plugin. */
export { IdentityProviderError, webPlugin } from './web/index.ts';
export type { WebOptions } from './web/index.ts';
/** Verification as middleware: Fastify, Express, plain node:http. */
export { createNodeVerifier, latchkeyExpress, latchkeyFastify } from './http/middleware/index.ts';
export type {
  ExpressLikeMiddleware,
  ExpressLikeRequest,
  FastifyMiddlewareOptions,
  MiddlewareOptions,
  NodeVerifier,
  OAuthCaller,
  VerifiedNodeRequest,
} from './http/middleware/index.ts';

// The protocol's error and the client SDK most servers also need (all of them are in
// `latchkey/protocol` and `latchkey/client`).

/** The typed protocol error: HTTP status and `oauth_problem`. */
export { OAuthError, SignatureMethodRegistry } from './protocol/index.ts';
/** Sign a request, a signing fetch, the three-step flow, LTI 1.1 outcomes. */
export {
  authorizationUrl,
  createSigningFetch,
  deleteResult,
  OAuthResponseError,
  OutcomeError,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  readResult,
  replaceResult,
  requestTemporaryCredentials,
  requestTokenCredentials,
  signRequest,
} from './client/index.ts';
export type { ClientCredentials, SigningFetch, TokenCredentials } from './client/index.ts';
