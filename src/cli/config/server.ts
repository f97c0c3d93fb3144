/**
 * The settings of the server itself (`latchkey serve`): where it listens, TLS and the proxy in
 * front of it, the URL it is reached at, the flow paths, the log, the body limit, how it stops,
 * and who may read its metrics. Each default is read from the module that owns it.
 */
import {
  boolean,
  enumeration,
  hostName,
  httpUrl,
  integer,
  optional,
  path,
  text,
  urlPath,
} from './config-values.ts';
import type { Setting } from './config-values.ts';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../../http/drain.ts';
import { DEFAULT_BODY_LIMIT, defaultPaths } from '../../http/options.ts';

export const serverSettings = {
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
} as const satisfies Record<string, Setting<unknown>>;
