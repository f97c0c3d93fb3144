/**
 * The settings of verification for a team's own edge and services (docs/edge.md):
 * forward-auth for nginx, Caddy, Traefik or Envoy, and the service credential of
 * `POST /verify`. The defaults are forward-auth's own (src/http/edge/edge-addresses.ts).
 */
import { boolean, optional, SettingProblem, text, urlPath } from './config-values.ts';
import type { Setting } from './config-values.ts';
import {
  DEFAULT_FORWARD_AUTH_PATH,
  DEFAULT_TRUSTED_EDGES,
  edgeCheck,
} from '../../http/edge/edge-addresses.ts';

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

export const edgeSettings = {
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
