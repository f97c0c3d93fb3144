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

/**
 * Whether `path` (already normalized, path.ts) falls under `pattern`. With `anyCase`,
 * ASCII letters match regardless of case.
 */
export function pathMatches(pattern: string, path: string, anyCase = false): boolean {
  if (anyCase) {
    pattern = pattern.toLowerCase();
    path = path.toLowerCase();
  }
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    return path === prefix || path.startsWith(`${prefix}/`);
  }
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return path === pattern;
}

/** The first rule that names the method and path; token rules in any case when `anyCase`. */
function firstMatch(
  rules: readonly GatewayRule[],
  method: string,
  path: string,
  anyCase: boolean,
): ResolvedRule {
  for (const rule of rules) {
    if (rule.methods !== undefined && !rule.methods.some((m) => m.toUpperCase() === method))
      continue;
    // An LTI launch path is two-legged (`client`): like every relaxing rule, exact case only.
    const access = rule.lti === true ? 'client' : (rule.access ?? 'token');
    if (!pathMatches(rule.path, path, anyCase && access === 'token')) continue;
    if (rule.lti === true) return { access, scope: undefined, requireBodyHash: false, lti: true };
    return {
      access,
      scope: rule.scope,
      requireBodyHash: rule.requireBodyHash ?? false,
      lti: false,
    };
  }
  return DEFAULT_RULE;
}

const STRICTNESS: Readonly<Record<GatewayAccess, number>> = { public: 0, client: 1, token: 2 };

/** What satisfies both rules: the stricter access, every scope of either, a body hash if either. */
function stricter(a: ResolvedRule, b: ResolvedRule): ResolvedRule {
  if (a === b) return a;
  const scopes = new Set(`${a.scope ?? ''} ${b.scope ?? ''}`.split(' ').filter(Boolean));
  return {
    access: STRICTNESS[a.access] >= STRICTNESS[b.access] ? a.access : b.access,
    scope: scopes.size === 0 ? undefined : [...scopes].join(' '),
    requireBodyHash: a.requireBodyHash || b.requireBodyHash,
    // A launch only where both readings name a launch path; otherwise the stricter rule.
    lti: a.lti && b.lti,
  };
}

/**
 * The rule for a request (its path normalized by path.ts): the first that names its
 * method and path. Case never loosens a rule: many upstreams route without regard to case
 * (Express by default, IIS), others do not. So a rule that demands a token also meets its
 * path in any other case (`/Admin/x` needs what `/admin/*` needs), a rule that relaxes
 * (`public`, `client`) meets only the exact case (`/PUBLIC/x` needs a token where `/public/*`
 * is public), and where the two readings differ the request must satisfy both.
 */
export function matchRule(
  rules: readonly GatewayRule[],
  method: string,
  path: string,
): ResolvedRule {
  return stricter(firstMatch(rules, method, path, false), firstMatch(rules, method, path, true));
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
