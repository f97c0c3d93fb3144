/**
 * One typed configuration for every `latchkey` command, from flags, `LATCHKEY_*` environment
 * variables and an optional JSON file (precedence in that order, then the defaults),
 * validated at start-up. The `settings` table below is the single source: the CLI builds its
 * flags from it and `scripts/generate-config-docs.ts` turns its TSDoc into
 * docs/configuration.md (`npm run docs:config`).
 */
import { dirname } from 'node:path';
import { nest, readConfigFile, resolveFrom } from './config-file.ts';
import { builtInSignatureMethods } from '../../protocol/signature-methods.ts';
import {
  boolean,
  databaseLocation,
  ConfigError,
  enumeration,
  hostName,
  httpUrl,
  integer,
  list,
  optional,
  path,
  redisLocation,
  SettingProblem,
  text,
  urlPath,
} from './config-values.ts';
import type { Setting } from './config-values.ts';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_IDENTITY_HEADERS,
  DEFAULT_MAX_UPLOADS_PER_ADDRESS,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  DEFAULT_UPLOAD_TIMEOUT_MS,
} from '../../http/gateway/defaults.ts';
import { parseGatewayRules } from '../../http/gateway/rules.ts';
import {
  DEFAULT_FORWARD_AUTH_PATH,
  DEFAULT_TRUSTED_EDGES,
  edgeCheck,
} from '../../http/edge/edge-addresses.ts';
import { DEFAULT_BODY_LIMIT, defaultPaths } from '../../http/options.ts';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../../http/drain.ts';
import { defaultPolicy } from '../../provider/policy.ts';
import { DEFAULT_CACHE_MAX_ENTRIES, DEFAULT_CACHE_TTL_MS } from '../../store/cached.ts';
import {
  DEFAULT_POSTGRES_SCHEMA,
  DEFAULT_REDIS_PREFIX,
  isPostgresUrl,
} from '../../store/locations.ts';
import {
  DEFAULT_NAME_CLAIMS,
  DEFAULT_OIDC_SCOPES,
  issuerProblem,
} from '../../provider/accounts/identity.ts';
import type { GatewayRule } from '../../http/gateway/rules.ts';
import { keySetOf } from '../../store/key-file.ts';

export { ConfigError, SettingProblem } from './config-values.ts';
export type { Setting } from './config-values.ts';

/** `secretKey`: one or more keys; the message never repeats the value. */
function secretKeys(raw: unknown): string {
  if (typeof raw !== 'string') throw new SettingProblem('must be base64 keys');
  try {
    keySetOf(raw);
  } catch {
    throw new SettingProblem('must be 32 random bytes in base64 (openssl rand -base64 32)');
  }
  return raw;
}

/**
 * Every setting. The TSDoc of each entry is its documentation (copied into
 * docs/configuration.md); `summary` is the one line `--help` shows. Names with a dot belong
 * to a group (`paths.authorize` is `config.paths.authorize` and `{"paths": {"authorize": …}}`
 * in the file).
 */
export const settings = {
  /**
   * The address `latchkey serve` listens on. The default accepts connections from this
   * machine only; use `0.0.0.0` (or `::`) to listen on every interface. Over plain HTTP the
   * flow endpoints and PLAINTEXT answer only on loopback unless `insecureHttp` is set.
   */
  host: {
    env: 'LATCHKEY_HOST',
    flag: '--host <address>',
    summary: 'address to listen on',
    default: '127.0.0.1',
    parse: hostName,
  },
  /** The TCP port `latchkey serve` listens on; `0` picks a free port (printed at start-up). */
  port: {
    env: 'LATCHKEY_PORT',
    flag: '--port <number>',
    summary: 'port to listen on (0 picks a free one)',
    default: 8080,
    parse: integer(0, 65535),
  },
  /**
   * With `adminPort`: the address the admin API's own listener binds (docs/admin.md). The
   * default keeps it on this machine.
   */
  adminHost: {
    env: 'LATCHKEY_ADMIN_HOST',
    flag: '--admin-host <address>',
    summary: 'address of the admin API listener (with adminPort)',
    default: '127.0.0.1',
    parse: hostName,
  },
  /**
   * Serve the admin API (`/admin/…`, docs/admin.md) on a listener of its own, on this port
   * (`0` picks a free one), so it can be kept off the public network; the public listener then
   * serves no admin route but the login app's `/admin/login/accept` and `/admin/login/reject`.
   * Unset: the admin API is served on the public listener (not in gateway mode, where the
   * public paths are the upstream API's).
   */
  adminPort: {
    env: 'LATCHKEY_ADMIN_PORT',
    flag: '--admin-port <number>',
    summary: 'serve the admin API on its own port',
    default: undefined,
    parse: optional(integer(0, 65535)),
  },
  /**
   * Where the data lives: the path of the embedded SQLite file (its directory is created when
   * missing), or a `postgres://user:password@host:5432/database` URL for the store several
   * instances share (docs/deployment.md). Every command that reads or writes clients, users or
   * tokens uses it. A URL may hold a password: prefer the environment or the file to a flag.
   */
  database: {
    env: 'LATCHKEY_DATABASE',
    flag: '--database <path-or-url>',
    summary: 'SQLite database file, or a postgres:// URL',
    default: './data/latchkey.db',
    parse: databaseLocation,
    isPath: true,
    secret: true,
  },
  /**
   * With a PostgreSQL `database`: a `redis://` (or `rediss://`) URL. Nonces and sign-in
   * counters then live in Redis, and each instance caches clients and tokens, told of every
   * change on the other instances through a Redis channel (revocation and secret rotation are
   * obeyed everywhere within a second). Every instance and every CLI command that changes
   * clients or tokens must use the same Redis and `redisPrefix`.
   */
  redis: {
    env: 'LATCHKEY_REDIS',
    flag: '--redis <url>',
    summary: 'redis:// URL: shared nonces, counters and cache invalidation',
    default: undefined,
    parse: optional(redisLocation),
    secret: true,
  },
  /** The PostgreSQL schema holding Latchkey's tables (created by the first migration). */
  postgresSchema: {
    env: 'LATCHKEY_POSTGRES_SCHEMA',
    flag: '--postgres-schema <name>',
    summary: 'PostgreSQL schema of the tables',
    default: DEFAULT_POSTGRES_SCHEMA,
    parse: text(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'an SQL identifier of 1-63 characters'),
  },
  /**
   * Prefix of every Redis key and of the invalidation channel, so several deployments can
   * share one Redis. Under Redis Cluster give it a hash tag, such as `{latchkey}:`.
   */
  redisPrefix: {
    env: 'LATCHKEY_REDIS_PREFIX',
    flag: '--redis-prefix <text>',
    summary: 'prefix of the Redis keys',
    default: DEFAULT_REDIS_PREFIX,
    parse: text(/^[\x21-\x7e]{1,64}$/, 'printable ASCII without spaces, 1-64 characters'),
  },
  /**
   * With `redis`: the longest time, in seconds, an instance serves a cached client or token
   * without reading it again, a safety net behind the invalidation channel (the cache is also
   * emptied and bypassed whenever the channel's connection is lost).
   */
  cacheTtlSeconds: {
    env: 'LATCHKEY_CACHE_TTL',
    flag: '--cache-ttl <seconds>',
    summary: 'longest life of a cached client or token, seconds',
    default: DEFAULT_CACHE_TTL_MS / 1000,
    parse: integer(1, 3600),
  },
  /** With `redis`: clients, and tokens, each instance keeps cached; `0` turns the cache off. */
  cacheMaxEntries: {
    env: 'LATCHKEY_CACHE_MAX_ENTRIES',
    flag: '--cache-max-entries <count>',
    summary: 'cached clients and tokens per instance (0: no cache)',
    default: DEFAULT_CACHE_MAX_ENTRIES,
    parse: integer(0, 1_000_000),
  },
  /**
   * PEM certificate file (with its chain). With `tlsKey`, `latchkey serve` speaks HTTPS
   * itself, which RFC 5849 §2.1 and §2.3 require around the flow endpoints.
   */
  tlsCert: {
    env: 'LATCHKEY_TLS_CERT',
    flag: '--tls-cert <file>',
    summary: 'PEM certificate file: serve HTTPS',
    default: undefined,
    parse: optional(path),
    isPath: true,
  },
  /** PEM private key file of `tlsCert`. Give both or neither. */
  tlsKey: {
    env: 'LATCHKEY_TLS_KEY',
    flag: '--tls-key <file>',
    summary: 'PEM private key file of --tls-cert',
    default: undefined,
    parse: optional(path),
    isPath: true,
  },
  /**
   * Latchkey runs behind a reverse proxy that terminates TLS: the signature base string URI
   * (RFC 5849 §3.4.1.2) and the client address follow `Forwarded` / `X-Forwarded-Proto` /
   * `X-Forwarded-Host`. Only set it when a proxy you run sets those headers, since a client
   * could otherwise choose the URI that is checked. The flow endpoints and PLAINTEXT then
   * answer only when the proxy forwards `https` (a loopback connection from the proxy does
   * not count).
   */
  trustProxy: {
    env: 'LATCHKEY_TRUST_PROXY',
    flag: '--trust-proxy',
    summary: 'trust Forwarded / X-Forwarded-* from a proxy',
    default: false,
    parse: boolean,
  },
  /**
   * Allow the flow endpoints and PLAINTEXT over plain HTTP on a non-loopback address. Credentials
   * then cross the network in clear: for a private test network only.
   */
  insecureHttp: {
    env: 'LATCHKEY_INSECURE_HTTP',
    flag: '--insecure-http',
    summary: 'allow the flow over plain HTTP off loopback',
    default: false,
    parse: boolean,
  },
  /**
   * The absolute URL clients reach this server at (for example `https://auth.example.com`),
   * used in the endpoint advertisement, the pages, the OpenAPI document and the sign-in
   * redirects. Without it they name the address the server listens on, never a request's
   * `Host` or `X-Forwarded-Host` (a client chooses those): set it behind a proxy.
   */
  publicUrl: {
    env: 'LATCHKEY_PUBLIC_URL',
    flag: '--public-url <url>',
    summary: 'URL clients reach this server at',
    default: undefined,
    parse: optional(httpUrl),
  },
  /** Path of the temporary credential endpoint (RFC 5849 §2.1). */
  'paths.requestToken': {
    env: 'LATCHKEY_REQUEST_TOKEN_PATH',
    flag: '--request-token-path <path>',
    summary: 'path of the temporary credential endpoint',
    default: defaultPaths.requestToken,
    parse: urlPath,
  },
  /** Path of the resource owner authorization page (RFC 5849 §2.2). */
  'paths.authorize': {
    env: 'LATCHKEY_AUTHORIZE_PATH',
    flag: '--authorize-path <path>',
    summary: 'path of the authorization page',
    default: defaultPaths.authorize,
    parse: urlPath,
  },
  /** Path of the token credential endpoint (RFC 5849 §2.3). */
  'paths.accessToken': {
    env: 'LATCHKEY_ACCESS_TOKEN_PATH',
    flag: '--access-token-path <path>',
    summary: 'path of the token credential endpoint',
    default: defaultPaths.accessToken,
    parse: urlPath,
  },
  /**
   * How far, in seconds, a request's `oauth_timestamp` may be from the server's clock, either
   * way (RFC 5849 §3.3 leaves it to the server). Nonces are kept this long.
   */
  timestampWindowSeconds: {
    env: 'LATCHKEY_TIMESTAMP_WINDOW',
    flag: '--timestamp-window <seconds>',
    summary: 'accepted clock difference, seconds',
    default: defaultPolicy.timestampWindowSeconds,
    parse: integer(1, 86400),
  },
  /**
   * Days the audit trail keeps a security event (sign-ins, grants, revocations, client
   * changes, imports, admin API actions; `latchkey audit`); older events are deleted by the
   * server's periodic maintenance.
   */
  auditRetentionDays: {
    env: 'LATCHKEY_AUDIT_RETENTION_DAYS',
    flag: '--audit-retention-days <days>',
    summary: 'days the audit trail keeps an event',
    default: defaultPolicy.auditRetentionDays,
    parse: integer(1, 36500),
  },
  /** Seconds a temporary credential lives between its issue and its exchange (RFC 5849 §2.1). */
  temporaryCredentialLifetimeSeconds: {
    env: 'LATCHKEY_TEMPORARY_CREDENTIAL_LIFETIME',
    flag: '--temporary-credential-lifetime <seconds>',
    summary: 'lifetime of temporary credentials, seconds',
    default: defaultPolicy.temporaryCredentialLifetimeSeconds,
    parse: integer(1, 86400),
  },
  /**
   * Default lifetime of token credentials, in seconds. Unset: a token lives until it is
   * revoked. The owner may choose a shorter lifetime on the consent page.
   */
  tokenLifetimeSeconds: {
    env: 'LATCHKEY_TOKEN_LIFETIME',
    flag: '--token-lifetime <seconds>',
    summary: 'default token lifetime, seconds (unset: until revoked)',
    default: undefined,
    parse: optional(integer(1, 10 * 365 * 86400)),
  },
  /**
   * Session extension (clients registered with `--session-extension`): the lifetime of each
   * token credential, in seconds; the client renews it with its session handle.
   */
  sessionTokenLifetimeSeconds: {
    env: 'LATCHKEY_SESSION_TOKEN_LIFETIME',
    flag: '--session-token-lifetime <seconds>',
    summary: 'session extension: token lifetime, seconds',
    default: defaultPolicy.sessionTokenLifetimeSeconds,
    parse: integer(60, 30 * 86400),
  },
  /**
   * Session extension (clients registered with `--session-extension`): how long a client's
   * session of renewals lasts, in seconds, when the owner approved access with no end (a
   * shorter lifetime the owner chose always wins). Not the owner's browser sign-in on the
   * pages, which lasts 12 hours (docs/pages.md).
   */
  sessionLifetimeSeconds: {
    env: 'LATCHKEY_SESSION_LIFETIME',
    flag: '--session-lifetime <seconds>',
    summary: 'session extension: longest session, seconds',
    default: defaultPolicy.sessionLifetimeSeconds,
    parse: integer(60, 10 * 365 * 86400),
  },
  /**
   * The signature methods the server accepts, comma-separated (or a JSON array in the file).
   * The default is every built-in method; PLAINTEXT is still refused over plain HTTP off
   * loopback.
   */
  signatureMethods: {
    env: 'LATCHKEY_SIGNATURE_METHODS',
    flag: '--signature-methods <list>',
    summary: 'accepted signature methods, comma-separated',
    default: builtInSignatureMethods.map((method) => method.name),
    parse: list(builtInSignatureMethods.map((method) => method.name)),
  },
  /**
   * The scopes a client may ask for, each name with the plain words the consent page shows for
   * it: `{"photos": "See your photos", "photos.write": "Add and delete your photos"}`. They
   * replace the built-in `read` and `write` (list those too to keep them). A name is 1 to 64
   * printable ASCII characters without spaces, quotes or backslashes; a description 1 to 200
   * characters. A gateway rule's `scope` must name scopes defined here, or the server does
   * not start. A JSON object in the file, or the same JSON as the environment variable's text.
   */
  scopes: {
    env: 'LATCHKEY_SCOPES',
    flag: undefined,
    summary: 'scopes clients may ask for, with their consent-page words (JSON object)',
    default: defaultPolicy.scopes as Readonly<Record<string, string>>,
    parse: scopeDefinitions,
  },
  /**
   * The scope a token gets when its client asks for none: space-separated names of `scopes`.
   * Unset: every scope defined (with the built-in scopes, `read write`).
   */
  defaultScope: {
    env: 'LATCHKEY_DEFAULT_SCOPE',
    flag: '--default-scope <names>',
    summary: 'scope granted when a client asks for none (unset: every scope)',
    default: undefined,
    parse: optional(text(/^[\x20-\x7e]{0,1000}$/, 'space-separated scope names')),
  },
  /** The realm in `WWW-Authenticate: OAuth realm="…"` on 401 answers (RFC 5849 §3.5.1). */
  realm: {
    env: 'LATCHKEY_REALM',
    flag: '--realm <text>',
    summary: 'realm sent in WWW-Authenticate',
    default: defaultPolicy.realm,
    parse: text(/^[\x20-\x7e]{1,100}$/, 'printable ASCII, 1-100 characters', /["\\]/),
  },
  /** How much the server logs (pino levels). `silent` logs nothing. */
  logLevel: {
    env: 'LATCHKEY_LOG_LEVEL',
    flag: '--log-level <level>',
    summary: 'fatal, error, warn, info, debug, trace or silent',
    default: 'info',
    parse: enumeration(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
  },
  /** The largest request body accepted on the OAuth endpoints, in bytes (413 above it). */
  bodyLimit: {
    env: 'LATCHKEY_BODY_LIMIT',
    flag: '--body-limit <bytes>',
    summary: 'largest request body, bytes',
    default: DEFAULT_BODY_LIMIT,
    parse: integer(1024, 64 * 1024 * 1024),
  },
  /**
   * Password sign-in attempts for one account from one address within `signIn.windowSeconds`
   * before that account is paused from that address only (the owner elsewhere still signs
   * in). The pause backs off: twice as many attempts per four windows, four times as many per
   * sixteen. A success clears the count.
   */
  'signIn.perAccountAddress': {
    env: 'LATCHKEY_SIGNIN_PER_ACCOUNT_ADDRESS',
    flag: '--signin-per-account-address <count>',
    summary: 'sign-in attempts per account and address per window',
    default: defaultPolicy.signIn.perAccountAddress,
    parse: integer(1, 1000),
  },
  /**
   * Sign-in steps from one address within `signIn.windowSeconds`, all accounts together
   * (429 above it): password posts, and with an identity source each sign-in started and
   * each return from it. Shared by every instance through Redis when the store has it. Set
   * for the largest office or campus that shares one public address.
   */
  'signIn.perAddress': {
    env: 'LATCHKEY_SIGNIN_PER_ADDRESS',
    flag: '--signin-per-address <count>',
    summary: 'sign-in steps per address per window',
    default: defaultPolicy.signIn.perAddress,
    parse: integer(1, 1_000_000),
  },
  /** The sign-in throttling window, in seconds. */
  'signIn.windowSeconds': {
    env: 'LATCHKEY_SIGNIN_WINDOW',
    flag: '--signin-window <seconds>',
    summary: 'sign-in throttling window, seconds',
    default: defaultPolicy.signIn.windowSeconds,
    parse: integer(1, 86400),
  },
  /**
   * The longest `latchkey serve` takes to stop after SIGTERM or SIGINT, in milliseconds. It
   * stops accepting connections, finishes the requests in flight and closes the store; if
   * that fails, or is not done within this bound (a store that does not answer), it exits
   * with status 1 all the same, so a supervisor never has to kill it. A second signal exits
   * at once.
   */
  shutdownTimeoutMs: {
    env: 'LATCHKEY_SHUTDOWN_TIMEOUT_MS',
    flag: '--shutdown-timeout <ms>',
    summary: 'longest graceful stop before exiting anyway, ms',
    default: 10_000,
    parse: integer(1, 600_000),
  },
  /**
   * After SIGTERM or SIGINT, how long `latchkey serve` lets the requests in flight finish, in
   * milliseconds, before it cuts the connections still open and closes the store. `/readyz`
   * answers 503 from the signal on, the listener closes at once, and each connection closes
   * after the answer it is serving (docs/deployment.md). Keep it below
   * `shutdownTimeoutMs`, which bounds the whole stop.
   */
  drainTimeoutMs: {
    env: 'LATCHKEY_DRAIN_TIMEOUT_MS',
    flag: '--drain-timeout <ms>',
    summary: 'longest wait for requests in flight after SIGTERM, ms',
    default: DEFAULT_DRAIN_TIMEOUT_MS,
    parse: integer(1, 600_000),
  },
  /**
   * Signs the session cookie of the authorization pages; at least 32 characters. Unset, a
   * random secret is made at each start, so owners sign in again after a restart; set the same
   * value on every instance behind a load balancer. No flag: a command line is visible to
   * every user of the machine.
   */
  sessionSecret: {
    env: 'LATCHKEY_SESSION_SECRET',
    flag: undefined,
    summary: 'cookie signing secret (at least 32 characters)',
    default: undefined,
    parse: optional(text(/^.{32,}$/su, 'at least 32 characters')),
    secret: true,
  },
  /**
   * The key that seals client, token and temporary-credential secrets in the database
   * (AES-256-GCM, docs/security.md "Secrets at rest"): 32 random bytes in base64
   * (`openssl rand -base64 32`). Several keys may be given, separated by commas: the first
   * seals, the others are still read (a rotation across instances). Takes precedence over
   * `secretKeyFile`. No flag: a command line is visible to every user of the machine.
   */
  secretKey: {
    env: 'LATCHKEY_SECRET_KEY',
    flag: undefined,
    summary: 'key sealing the secrets at rest (base64, 32 bytes)',
    default: undefined,
    parse: optional(secretKeys),
    secret: true,
  },
  /**
   * A key file sealing the secrets at rest (JSON, written 0600; created with a new key when
   * missing; `latchkey keys rotate` adds keys to it). Unset with an SQLite database and no
   * `secretKey`: `latchkey.key` beside the database file, created on first use. Unset with
   * PostgreSQL and no `secretKey`: secrets are stored in clear, and `serve` says so.
   */
  secretKeyFile: {
    env: 'LATCHKEY_SECRET_KEY_FILE',
    flag: '--secret-key-file <path>',
    summary: 'key file sealing the secrets at rest',
    default: undefined,
    parse: optional(path),
    isPath: true,
  },
  /**
   * Where resource owners come from (docs/identity.md): `local` (Latchkey's own accounts,
   * made with `latchkey users add`), `oidc` (the team's OpenID Connect provider: set the
   * `oidc.*` settings) or `delegated` (the team's own login app, which accepts a login
   * challenge through `POST /admin/login/accept`: set `delegated.loginUrl` and
   * `delegated.adminToken`). Owners from `oidc` and `delegated` are created on their first
   * sign-in and have no Latchkey password.
   */
  'identity.source': {
    env: 'LATCHKEY_IDENTITY',
    flag: '--identity <source>',
    summary: 'where owners sign in: local, oidc or delegated',
    default: 'local',
    parse: enumeration(['local', 'oidc', 'delegated'] as const),
  },
  /**
   * With `identity.source` `oidc`: the issuer URL of the OpenID Connect provider (discovered
   * at `{issuer}/.well-known/openid-configuration`). https, or http on loopback only.
   * Register `{publicUrl}/signin/oidc/callback` as the redirect URI at the provider.
   */
  'oidc.issuer': {
    env: 'LATCHKEY_OIDC_ISSUER',
    flag: '--oidc-issuer <url>',
    summary: 'OpenID Connect issuer URL',
    default: undefined,
    parse: optional(oidcIssuer),
  },
  /** With `oidc`: the client id Latchkey was registered with at the OpenID Connect provider. */
  'oidc.clientId': {
    env: 'LATCHKEY_OIDC_CLIENT_ID',
    flag: '--oidc-client-id <id>',
    summary: 'OpenID Connect client id',
    default: undefined,
    parse: optional(text(/^[\x21-\x7e]{1,255}$/, 'visible ASCII, 1-255 characters')),
  },
  /**
   * With `oidc`: the client secret (`client_secret_basic`). Unset: Latchkey is a public
   * client and relies on PKCE alone. No flag: a command line is visible to every user of the
   * machine.
   */
  'oidc.clientSecret': {
    env: 'LATCHKEY_OIDC_CLIENT_SECRET',
    flag: undefined,
    summary: 'OpenID Connect client secret',
    default: undefined,
    parse: optional(text(/^.{1,1024}$/su, '1-1024 characters')),
    secret: true,
  },
  /** With `oidc`: the scopes asked for, space-separated (`openid` is always included). */
  'oidc.scopes': {
    env: 'LATCHKEY_OIDC_SCOPES',
    flag: '--oidc-scopes <scopes>',
    summary: 'OpenID Connect scopes, space-separated',
    default: DEFAULT_OIDC_SCOPES,
    parse: text(
      /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
      'space-separated scope names',
    ),
  },
  /**
   * With `oidc`: the ID token claims tried in turn for an owner's display name,
   * comma-separated; the subject is shown when none is present.
   */
  'oidc.nameClaims': {
    env: 'LATCHKEY_OIDC_NAME_CLAIMS',
    flag: '--oidc-name-claims <claims>',
    summary: 'claims giving the display name, in order',
    default: [...DEFAULT_NAME_CLAIMS],
    parse: claimList,
  },
  /**
   * With `identity.source` `delegated`: the login app's page. A signed-out owner is sent to
   * `{loginUrl}?login_challenge=…`; the app signs the person in its own way, then calls
   * `POST /admin/login/accept` (docs/identity.md).
   */
  'delegated.loginUrl': {
    env: 'LATCHKEY_LOGIN_URL',
    flag: '--login-url <url>',
    summary: 'delegated: the login app URL',
    default: undefined,
    parse: optional(pageUrl),
  },
  /**
   * With `delegated`: the bearer token the login app sends to `/admin/login/accept` and
   * `/admin/login/reject`; at least 32 characters. No flag: a command line is visible to
   * every user of the machine.
   */
  'delegated.adminToken': {
    env: 'LATCHKEY_ADMIN_TOKEN',
    flag: undefined,
    summary: 'delegated: admin API bearer token (at least 32 characters)',
    default: undefined,
    parse: optional(text(/^[\x21-\x7e]{32,}$/, 'at least 32 visible ASCII characters')),
    secret: true,
  },
  /**
   * Answer `GET /metrics` to anyone. By default only a scraper on this machine connecting
   * directly (not through a proxy) may read it; others get 404 (docs/decisions.md).
   */
  metricsPublic: {
    env: 'LATCHKEY_METRICS_PUBLIC',
    flag: '--metrics-public',
    summary: 'answer GET /metrics to anyone',
    default: false,
    parse: boolean,
  },
  /**
   * Answer `GET /metrics` to `Authorization: Bearer <this token>` only, from anywhere (and no
   * longer to loopback without it); at least 16 characters. No flag: a command line is visible
   * to every user of the machine.
   */
  metricsToken: {
    env: 'LATCHKEY_METRICS_TOKEN',
    flag: undefined,
    summary: 'bearer token for GET /metrics (at least 16 characters)',
    default: undefined,
    parse: optional(text(/^\S{16,}$/, 'at least 16 characters without spaces')),
    secret: true,
  },
  /**
   * Gateway mode: the API to protect, e.g. `http://127.0.0.1:3000`. Every request outside
   * Latchkey's own paths is verified, then forwarded there with `X-OAuth-Client`,
   * `X-OAuth-Owner`, `X-OAuth-Owner-Name` and `X-OAuth-Scope` set and the protocol parameters removed
   * (docs/gateway.md). Unset: no gateway; unknown paths answer 404.
   */
  'gateway.upstream': {
    env: 'LATCHKEY_UPSTREAM',
    flag: '--upstream <url>',
    summary: 'gateway mode: verify, then forward to this API',
    default: undefined,
    parse: optional(httpUrl),
  },
  /**
   * Gateway per-path rules, first match wins: `[{"path": "/public/*", "access": "public"},
   * {"path": "/admin/*", "scope": "write"}]`. `access` is `token` (the default for any path),
   * `client` (a request signed by the client alone is accepted) or `public` (not verified);
   * `methods` limits a rule to some methods; `scope` is required of the token (403
   * otherwise); `requireBodyHash: true` requires `oauth_body_hash` on a body that is not
   * form-encoded; `lti: true` makes the path a Basic LTI launch path (docs/lti.md). A JSON
   * array in the file, or the same JSON as the environment variable's text.
   */
  'gateway.rules': {
    env: 'LATCHKEY_GATEWAY_RULES',
    flag: undefined,
    summary: 'gateway per-path rules (JSON array)',
    default: [] as GatewayRule[],
    parse: gatewayRules,
  },
  /** The header that tells the upstream which client is calling (its client key). */
  'gateway.clientHeader': {
    env: 'LATCHKEY_GATEWAY_CLIENT_HEADER',
    flag: undefined,
    summary: 'gateway: header carrying the client key',
    default: DEFAULT_IDENTITY_HEADERS.client,
    parse: headerName,
  },
  /**
   * The header that tells the upstream for which resource owner: the owner's subject, the
   * upstream's own id of the user (docs/identity.md; a local owner's is its Latchkey id).
   */
  'gateway.ownerHeader': {
    env: 'LATCHKEY_GATEWAY_OWNER_HEADER',
    flag: undefined,
    summary: 'gateway: header carrying the owner subject',
    default: DEFAULT_IDENTITY_HEADERS.owner,
    parse: headerName,
  },
  /** The header carrying the owner's display name, percent-encoded UTF-8 (`decodeURIComponent`). */
  'gateway.ownerNameHeader': {
    env: 'LATCHKEY_GATEWAY_OWNER_NAME_HEADER',
    flag: undefined,
    summary: 'gateway: header carrying the owner display name',
    default: DEFAULT_IDENTITY_HEADERS.ownerName,
    parse: headerName,
  },
  /** The header that tells the upstream the token's scope (space-separated). */
  'gateway.scopeHeader': {
    env: 'LATCHKEY_GATEWAY_SCOPE_HEADER',
    flag: undefined,
    summary: 'gateway: header carrying the scope',
    default: DEFAULT_IDENTITY_HEADERS.scope,
    parse: headerName,
  },
  /** Give up connecting to the upstream after this many milliseconds (504). */
  'gateway.connectTimeoutMs': {
    env: 'LATCHKEY_GATEWAY_CONNECT_TIMEOUT_MS',
    flag: undefined,
    summary: 'gateway: connect timeout, ms',
    default: DEFAULT_CONNECT_TIMEOUT_MS,
    parse: integer(1, 600_000),
  },
  /** Give up waiting for the upstream's answer after this many milliseconds (504). */
  'gateway.responseTimeoutMs': {
    env: 'LATCHKEY_GATEWAY_RESPONSE_TIMEOUT_MS',
    flag: undefined,
    summary: 'gateway: response timeout, ms',
    default: DEFAULT_RESPONSE_TIMEOUT_MS,
    parse: integer(1, 3_600_000),
  },
  /**
   * A request body must have arrived in full this many milliseconds after the request began,
   * or the request is answered 408 and its connection closed (docs/gateway.md, "Slow uploads").
   */
  'gateway.uploadTimeoutMs': {
    env: 'LATCHKEY_GATEWAY_UPLOAD_TIMEOUT_MS',
    flag: undefined,
    summary: 'gateway: time a request body may take to arrive, ms',
    default: DEFAULT_UPLOAD_TIMEOUT_MS,
    parse: integer(1, 3_600_000),
  },
  /** Request bodies one client address may be sending at once; one more is answered 429. */
  'gateway.maxUploadsPerAddress': {
    env: 'LATCHKEY_GATEWAY_MAX_UPLOADS_PER_ADDRESS',
    flag: undefined,
    summary: 'gateway: request bodies under way per address',
    default: DEFAULT_MAX_UPLOADS_PER_ADDRESS,
    parse: integer(1, 100_000),
  },
  /**
   * Forward-auth for the edge a team already runs (docs/edge.md): nginx `auth_request`, Caddy
   * `forward_auth`, Traefik `ForwardAuth` or Envoy `ext_authz` ask `forwardAuth.path` about
   * each request, and Latchkey verifies it as the gateway would, with `gateway.rules` and the
   * gateway's identity header names, answering 200 with the identity headers or the refusal.
   */
  'forwardAuth.enabled': {
    env: 'LATCHKEY_FORWARD_AUTH',
    flag: '--forward-auth',
    summary: 'answer forward-auth requests from an edge (nginx, Caddy, Traefik, Envoy)',
    default: false,
    parse: boolean,
  },
  /** Where the edge asks; Envoy's `path_prefix` (the original path is appended to it). */
  'forwardAuth.path': {
    env: 'LATCHKEY_FORWARD_AUTH_PATH',
    flag: undefined,
    summary: 'forward-auth: the path the edge asks',
    default: DEFAULT_FORWARD_AUTH_PATH,
    parse: forwardAuthPath,
  },
  /**
   * The edges allowed to ask, by the address they connect from: addresses and CIDR blocks,
   * comma-separated (`10.0.0.5, 10.1.0.0/16`). Anyone else gets 403: whoever may ask may
   * describe any request. The default is loopback: an edge on this machine.
   */
  'forwardAuth.trustedEdges': {
    env: 'LATCHKEY_FORWARD_AUTH_TRUSTED_EDGES',
    flag: undefined,
    summary: 'forward-auth: edge addresses or CIDR blocks allowed to ask',
    default: [...DEFAULT_TRUSTED_EDGES],
    parse: edgeAddresses,
  },
  /**
   * The service credential of `POST /verify` (docs/edge.md), the verification API for
   * services in any language: they send `Authorization: Bearer <this>`. At least 32
   * characters. Unset: no `/verify`. No flag: a command line is visible to every user of the
   * machine.
   */
  verifyToken: {
    env: 'LATCHKEY_VERIFY_TOKEN',
    flag: undefined,
    summary: 'bearer token services send to POST /verify (at least 32 characters)',
    default: undefined,
    parse: optional(text(/^[\x21-\x7e]{32,}$/, 'at least 32 visible ASCII characters')),
    secret: true,
  },
} as const satisfies Record<string, Setting<unknown>>;

export type SettingName = keyof typeof settings;
type Values = { -readonly [K in SettingName]: ReturnType<(typeof settings)[K]['parse']> };
type TopLevel = { [K in SettingName]: K extends `${string}.${string}` ? never : K }[SettingName];
type Group = { [K in SettingName]: K extends `${infer G}.${string}` ? G : never }[SettingName];

/** The resolved configuration: one field per setting, grouped settings as nested objects. */
export type LatchkeyConfig = { readonly [K in TopLevel]: Values[K] } & {
  readonly [G in Group]: {
    readonly [K in SettingName as K extends `${G}.${infer R}` ? R : never]: Values[K];
  };
};

export const settingNames = Object.keys(settings) as SettingName[];

/** What every command that opens the store takes: where it is and how it is shared. */
export const storeSettingNames = [
  'database',
  'redis',
  'postgresSchema',
  'redisPrefix',
  'cacheTtlSeconds',
  'cacheMaxEntries',
  'secretKey',
  'secretKeyFile',
] as const satisfies readonly SettingName[];

export interface ConfigSources {
  /** Values from the command line, by setting name; undefined means not given. */
  readonly flags?: Readonly<Partial<Record<SettingName, unknown>>> | undefined;
  /** The environment (process.env). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The JSON config file; `LATCHKEY_CONFIG` when not given. */
  readonly file?: string | undefined;
}

/** How a setting is spelled in each place, for messages. */
export function spellings(name: SettingName): { flag?: string; env: string; file: string } {
  const setting: Setting<unknown> = settings[name];
  const flag = setting.flag?.split(' ')[0];
  return { ...(flag === undefined ? {} : { flag }), env: setting.env, file: name };
}

/** Resolves and validates the configuration; throws ConfigError naming the bad setting. */
export function loadConfig(sources: ConfigSources = {}): LatchkeyConfig {
  const env = sources.env ?? {};
  const filePath = sources.file ?? nonEmpty(env['LATCHKEY_CONFIG']);
  const file = filePath === undefined ? {} : readConfigFile(filePath, settingNames);
  const values: Record<string, unknown> = {};
  const origins: Record<string, ConfigError['origin']> = {};

  for (const name of settingNames) {
    const setting: Setting<unknown> = settings[name];
    const names = spellings(name);
    const flagValue = sources.flags?.[name];
    const envValue = nonEmpty(env[setting.env]);
    let origin: ConfigError['origin'] = 'default';
    let label: string = name;
    let raw: unknown = undefined;
    if (flagValue !== undefined) [origin, label, raw] = ['flag', names.flag ?? name, flagValue];
    else if (envValue !== undefined) [origin, label, raw] = ['env', setting.env, envValue];
    else if (Object.hasOwn(file, name)) {
      [origin, label, raw] = ['file', `${name} (in ${filePath})`, file[name]];
      if (setting.isPath === true && typeof raw === 'string' && filePath !== undefined) {
        raw = resolveFrom(dirname(filePath), raw);
      }
    }
    origins[name] = origin;
    if (origin === 'default') {
      values[name] = setting.default;
      continue;
    }
    try {
      values[name] = setting.parse(raw);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      const got = setting.secret === true ? '' : `, got ${show(raw)}`;
      throw new ConfigError(name, origin, `${label}: ${error.message}${got}`);
    }
  }

  checkTogether(values, origins, filePath);
  return nest(values) as LatchkeyConfig;
}

function checkTogether(
  values: Record<string, unknown>,
  origins: Record<string, ConfigError['origin']>,
  filePath: string | undefined,
): void {
  const where = (name: SettingName): string => {
    const names = spellings(name);
    const origin = origins[name];
    if (origin === 'flag') return names.flag ?? name;
    if (origin === 'env') return names.env;
    return `${name} (in ${filePath})`;
  };
  const cert = values['tlsCert'];
  const key = values['tlsKey'];
  if ((cert === undefined) !== (key === undefined)) {
    const [given, missing]: [SettingName, SettingName] =
      cert === undefined ? ['tlsKey', 'tlsCert'] : ['tlsCert', 'tlsKey'];
    const other = spellings(missing);
    throw new ConfigError(
      given,
      origins[given] ?? 'default',
      `${where(given)}: needs ${missing} too (${other.flag} or ${other.env}): give both or neither`,
    );
  }
  if (values['redis'] !== undefined && !isPostgresUrl(String(values['database']))) {
    throw new ConfigError(
      'redis',
      origins['redis'] ?? 'default',
      `${where('redis')}: needs a PostgreSQL database (database must be a postgres:// URL)`,
    );
  }
  const needs: Record<string, readonly SettingName[]> = {
    oidc: ['oidc.issuer', 'oidc.clientId'],
    delegated: ['delegated.loginUrl', 'delegated.adminToken'],
  };
  for (const name of needs[String(values['identity.source'])] ?? []) {
    if (values[name] !== undefined) continue;
    const names = spellings(name);
    throw new ConfigError(
      name,
      'default',
      `${where('identity.source')}: ${String(values['identity.source'])} needs ${name} ` +
        `(${names.flag === undefined ? '' : `${names.flag} or `}${names.env})`,
    );
  }
  checkScopes(values, origins, where);
  const seen = new Map<unknown, SettingName>();
  for (const name of ['paths.requestToken', 'paths.authorize', 'paths.accessToken'] as const) {
    const earlier = seen.get(values[name]);
    if (earlier !== undefined) {
      throw new ConfigError(
        name,
        origins[name] ?? 'default',
        `${where(name)}: must differ from ${earlier}, got ${show(values[name])} for both`,
      );
    }
    seen.set(values[name], name);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function show(raw: unknown): string {
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** An HTTP header name (RFC 7230 token). */
function headerName(raw: unknown): string {
  if (typeof raw !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(raw)) {
    throw new SettingProblem('must be an HTTP header name such as X-OAuth-Client');
  }
  return raw;
}

/** An OpenID Connect issuer: https, or http on loopback only. */
function oidcIssuer(raw: unknown): string {
  if (typeof raw !== 'string') throw new SettingProblem('must be a URL');
  const problem = issuerProblem(raw);
  if (problem !== undefined) throw new SettingProblem(problem);
  return raw;
}

/** A page to send a browser to: http(s), a query allowed, no fragment. */
function pageUrl(raw: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof raw === 'string' ? new URL(raw) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.hash !== '') {
    throw new SettingProblem('must be an absolute http or https URL without a fragment');
  }
  return raw as string;
}

/** Claim names, from an array or a comma-separated string. */
function claimList(raw: unknown): string[] {
  const items = Array.isArray(raw)
    ? raw
    : typeof raw === 'string'
      ? raw.split(',').map((item) => item.trim())
      : [];
  if (
    items.length === 0 ||
    !items.every((item) => typeof item === 'string' && /^[\x21-\x7e]{1,64}$/.test(item))
  ) {
    throw new SettingProblem('must be a comma-separated list of claim names');
  }
  return items as string[];
}

const SCOPE_NAME = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

/** `scopes`: names and the words the consent page shows (a JSON object, or its text). */
function scopeDefinitions(raw: unknown): Record<string, string> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SettingProblem(
      'must be a JSON object of scope names and descriptions, like {"photos": "See your photos"}',
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new SettingProblem('must define at least one scope');
  for (const [name, description] of entries) {
    if (!SCOPE_NAME.test(name)) {
      throw new SettingProblem(
        `scope name ${JSON.stringify(name.slice(0, 70))} must be 1 to 64 printable ASCII characters without spaces, quotes or backslashes`,
      );
    }
    if (
      typeof description !== 'string' ||
      description.trim() === '' ||
      description.length > 200 ||
      /\p{Cc}/u.test(description)
    ) {
      throw new SettingProblem(
        `the description of scope "${name}" must be text of 1 to 200 characters, shown on the consent page`,
      );
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * The default scope and every gateway rule's scope name only scopes that are defined: a rule
 * requiring an unknown scope could never be satisfied (no client can be granted it).
 */
function checkScopes(
  values: Record<string, unknown>,
  origins: Record<string, ConfigError['origin']>,
  where: (name: SettingName) => string,
): void {
  const scopes = values['scopes'] as Readonly<Record<string, string>>;
  const known = Object.keys(scopes);
  const unknownOf = (names: string) =>
    names.split(' ').filter((name) => name !== '' && !Object.hasOwn(scopes, name));
  const defaultScope = values['defaultScope'] as string | undefined;
  if (defaultScope !== undefined) {
    const unknown = unknownOf(defaultScope);
    if (unknown.length > 0) {
      throw new ConfigError(
        'defaultScope',
        origins['defaultScope'] ?? 'default',
        `${where('defaultScope')}: names ${unknown.map((n) => `"${n}"`).join(', ')}, not among the scopes (${known.join(', ')})`,
      );
    }
  }
  (values['gateway.rules'] as readonly GatewayRule[]).forEach((rule, index) => {
    const unknown = unknownOf(rule.scope ?? '');
    if (unknown.length === 0) return;
    throw new ConfigError(
      'gateway.rules',
      origins['gateway.rules'] ?? 'default',
      `${where('gateway.rules')}: rule ${index} (${rule.path}) requires scope ${unknown.map((n) => `"${n}"`).join(', ')}, which no client can be granted: define it in scopes (defined: ${known.join(', ')})`,
    );
  });
}

/** Gateway rules: the gateway's own parser, its messages as the setting's. */
function gatewayRules(raw: unknown): GatewayRule[] {
  try {
    return parseGatewayRules(raw);
  } catch (error) {
    throw new SettingProblem(error instanceof Error ? error.message : 'invalid rule');
  }
}

/** The forward-auth path: a URL path, not one of Latchkey's own (`/` would take every path). */
function forwardAuthPath(raw: unknown): string {
  const value = urlPath(raw).replace(/\/+$/, '');
  if (value === '') throw new SettingProblem('must be a path below /, such as /auth/verify');
  return value;
}

/** Edge addresses: a list, or a comma-separated string, each an address or a CIDR block. */
function edgeAddresses(raw: unknown): string[] {
  const items = Array.isArray(raw)
    ? raw
    : typeof raw === 'string'
      ? raw
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '')
      : [];
  if (items.length === 0 || !items.every((item) => typeof item === 'string')) {
    throw new SettingProblem('must be a comma-separated list of addresses or CIDR blocks');
  }
  try {
    edgeCheck(items as string[]);
  } catch (error) {
    throw new SettingProblem(error instanceof Error ? error.message : 'invalid address');
  }
  return items as string[];
}
