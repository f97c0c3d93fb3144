/**
 * Per-path rules for the gateway: which paths need a token, which accept a request signed by
 * the client alone, which scope a path requires, and which are public. First match wins;
 * a path no rule names needs a token (secure by default).
 */
export type GatewayAccess = 'token' | 'client' | 'public';

export interface GatewayRule {
  /** `/exact`, `/prefix/*` (the prefix and everything under it) or `/starts-with*`. */
  readonly path: string;
  /** Methods the rule applies to; all when absent. */
  readonly methods?: readonly string[] | undefined;
  /** `token` (default): three-legged only; `client`: a token is optional; `public`: no check. */
  readonly access?: GatewayAccess | undefined;
  /** Scope names the token must carry (403 permission_denied otherwise). */
  readonly scope?: string | undefined;
  /** A body that is not form-encoded must carry `oauth_body_hash` (400 otherwise). */
  readonly requireBodyHash?: boolean | undefined;
  /**
   * A Basic LTI 1.1 launch path (docs/lti.md): the request must be a launch signed by an LMS
   * registered as a client (two-legged); the upstream gets the launch as `X-LTI-*` headers.
   */
  readonly lti?: boolean | undefined;
}

export interface ResolvedRule {
  readonly access: GatewayAccess;
  readonly scope: string | undefined;
  readonly requireBodyHash: boolean;
  readonly lti: boolean;
}

const DEFAULT_RULE: ResolvedRule = {
  access: 'token',
  scope: undefined,
  requireBodyHash: false,
  lti: false,
};

export function pathMatches(pattern: string, path: string): boolean {
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    return path === prefix || path.startsWith(`${prefix}/`);
  }
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return path === pattern;
}

export function matchRule(
  rules: readonly GatewayRule[],
  method: string,
  path: string,
): ResolvedRule {
  for (const rule of rules) {
    if (rule.methods !== undefined && !rule.methods.some((m) => m.toUpperCase() === method))
      continue;
    if (!pathMatches(rule.path, path)) continue;
    if (rule.lti === true) {
      return { access: 'client', scope: undefined, requireBodyHash: false, lti: true };
    }
    return {
      access: rule.access ?? 'token',
      scope: rule.scope,
      requireBodyHash: rule.requireBodyHash ?? false,
      lti: false,
    };
  }
  return DEFAULT_RULE;
}

/**
 * Parses and checks gateway rules, the one place that knows their shape: an array (the file,
 * or the middleware's options) or its JSON text (the environment). Called at start-up, so a
 * typo is an error message and not an open path.
 *
 * @throws TypeError naming the rule and the field, e.g. `rule 0: path must start with "/"`.
 */
export function parseGatewayRules(raw: unknown): GatewayRule[] {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new TypeError('must be a JSON array of rules');
    }
  }
  if (!Array.isArray(value) || !value.every((rule) => typeof rule === 'object' && rule !== null)) {
    throw new TypeError('must be an array of rules like {"path": "/public/*", "access": "public"}');
  }
  const known = new Set(['path', 'methods', 'access', 'scope', 'requireBodyHash', 'lti']);
  value.forEach((rule: Record<string, unknown>, index) => {
    const extra = Object.keys(rule).find((name) => !known.has(name));
    if (extra !== undefined) throw new TypeError(`rule ${index}: unknown field "${extra}"`);
    const path = rule['path'];
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw new TypeError(`rule ${index}: path must start with "/"`);
    }
    const methods = rule['methods'];
    if (
      methods !== undefined &&
      !(Array.isArray(methods) && methods.every((m) => typeof m === 'string'))
    ) {
      throw new TypeError(`rule ${index}: methods must be an array of method names`);
    }
    const access = rule['access'];
    if (access !== undefined && !['token', 'client', 'public'].includes(access as string)) {
      throw new TypeError(`rule ${index}: access must be token, client or public`);
    }
    if (rule['scope'] !== undefined && typeof rule['scope'] !== 'string') {
      throw new TypeError(`rule ${index}: scope must be a string`);
    }
    if (access === 'public' && rule['scope'] !== undefined) {
      throw new TypeError(`rule ${index}: a public path cannot require a scope`);
    }
    const requireBodyHash = rule['requireBodyHash'];
    if (requireBodyHash !== undefined && typeof requireBodyHash !== 'boolean') {
      throw new TypeError(`rule ${index}: requireBodyHash must be true or false`);
    }
    if (access === 'public' && requireBodyHash === true) {
      throw new TypeError(`rule ${index}: a public path cannot require a body hash`);
    }
    const lti = rule['lti'];
    if (lti !== undefined && typeof lti !== 'boolean') {
      throw new TypeError(`rule ${index}: lti must be true or false`);
    }
    if (
      lti === true &&
      (rule['scope'] !== undefined || requireBodyHash === true || (access ?? 'client') !== 'client')
    ) {
      throw new TypeError(
        `rule ${index}: an LTI launch path is signed by the LMS alone; it takes no access, scope or body hash`,
      );
    }
  });
  return value as GatewayRule[];
}
