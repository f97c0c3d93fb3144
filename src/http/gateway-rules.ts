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

/** Checks rules at start-up, so a typo is an error message and not an open path. */
export function checkRules(rules: readonly GatewayRule[]): void {
  rules.forEach((rule, index) => {
    if (typeof rule.path !== 'string' || !rule.path.startsWith('/')) {
      throw new TypeError(`gateway.rules[${index}].path must start with "/".`);
    }
    if (rule.access !== undefined && !['token', 'client', 'public'].includes(rule.access)) {
      throw new TypeError(`gateway.rules[${index}].access must be token, client or public.`);
    }
    if (rule.access === 'public' && rule.scope !== undefined) {
      throw new TypeError(`gateway.rules[${index}]: a public path cannot require a scope.`);
    }
    if (rule.requireBodyHash !== undefined && typeof rule.requireBodyHash !== 'boolean') {
      throw new TypeError(`gateway.rules[${index}].requireBodyHash must be true or false.`);
    }
    if (rule.access === 'public' && rule.requireBodyHash === true) {
      throw new TypeError(`gateway.rules[${index}]: a public path cannot require a body hash.`);
    }
    if (rule.lti !== undefined && typeof rule.lti !== 'boolean') {
      throw new TypeError(`gateway.rules[${index}].lti must be true or false.`);
    }
    if (
      rule.lti === true &&
      (rule.scope !== undefined ||
        rule.requireBodyHash === true ||
        (rule.access ?? 'client') !== 'client')
    ) {
      throw new TypeError(
        `gateway.rules[${index}]: an LTI launch path is signed by the LMS alone; it takes no access, scope or body hash.`,
      );
    }
  });
}
