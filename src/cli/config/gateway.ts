/**
 * The settings of gateway mode (docs/gateway.md): the upstream, the per-path rules, the
 * identity headers and the upstream's timeouts and upload bounds. The defaults and the rules'
 * parser are the gateway's own (src/http/gateway/).
 */
import { httpUrl, integer, optional, SettingProblem } from './config-values.ts';
import type { Setting } from './config-values.ts';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_IDENTITY_HEADERS,
  DEFAULT_MAX_UPLOADS_PER_ADDRESS,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  DEFAULT_UPLOAD_TIMEOUT_MS,
} from '../../http/gateway/defaults.ts';
import { parseGatewayRules } from '../../http/gateway/rules.ts';
import type { GatewayRule } from '../../http/gateway/rules.ts';

/** An HTTP header name (RFC 7230 token). */
function headerName(raw: unknown): string {
  if (typeof raw !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(raw)) {
    throw new SettingProblem('must be an HTTP header name such as X-OAuth-Client');
  }
  return raw;
}

/** Gateway rules: the gateway's own parser, its messages as the setting's. */
function gatewayRules(raw: unknown): GatewayRule[] {
  try {
    return parseGatewayRules(raw);
  } catch (error) {
    throw new SettingProblem(error instanceof Error ? error.message : 'invalid rule');
  }
}

export const gatewaySettings = {
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
} as const satisfies Record<string, Setting<unknown>>;
