/**
 * Forward-auth (docs/edge.md): the edge a team already runs (nginx `auth_request`, Caddy
 * `forward_auth`, Traefik `ForwardAuth`, Envoy `ext_authz`) asks Latchkey about each request
 * before it proxies it. The endpoint rebuilds the original request from what the edge sends,
 * verifies it as the gateway would (the same rules, the same steps, the nonce consumed once),
 * and answers 200 with the identity headers for the edge to copy upstream, or the refusal
 * (`oauth_problem` body, `WWW-Authenticate` on 401) for the edge to return.
 *
 * The original request comes from, in this order:
 *   - nginx: `X-Original-URI` and `X-Original-Method` (set by the documented config);
 *   - Caddy, Traefik: `X-Forwarded-Uri` and `X-Forwarded-Method`;
 *   - Envoy: the original path appended to the endpoint's path (`path_prefix`), the method
 *     and headers as sent, and the body with `with_request_body`.
 * The Host is `X-Forwarded-Host`, else `Host`; the scheme `X-Forwarded-Proto`, else the
 * connection's. Only a peer among the trusted edges may describe a request (403 otherwise).
 */
import { DEFAULT_BODY_LIMIT } from '../options.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isFormContentType, OAuthError, percentEncode } from '../../protocol/index.ts';
import type { IncomingRequest, Provider, VerifiedCaller } from '../../provider/index.ts';
import { failureAnswer } from '../error-reply.ts';
import type { FailureAnswer } from '../error-reply.ts';
import { DEFAULT_IDENTITY_HEADERS } from '../gateway/defaults.ts';
import type { IdentityHeaderNames } from '../gateway/gateway.ts';
import { normalizeGatewayPath } from '../gateway/path.ts';
import { matchRule, parseGatewayRules } from '../gateway/rules.ts';
import type { GatewayRule } from '../gateway/rules.ts';
import { keepBodiesForVerification } from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';
import { launchHeaders } from '../lti/lti-headers.ts';
import { setRateLimitHeaders } from '../rate-limit-headers.ts';
import { ltiFailureAnswer } from '../lti/lti-reply.ts';
import { DEFAULT_FORWARD_AUTH_PATH, DEFAULT_TRUSTED_EDGES, edgeCheck } from './edge-addresses.ts';

export interface ForwardAuthOptions {
  /** Where the edge asks (default `/auth/verify`); Envoy appends the original path to it. */
  readonly path?: string | undefined;
  /** Peer addresses or CIDR blocks allowed to ask (default loopback). */
  readonly trustedEdges?: readonly string[] | undefined;
  /** The gateway's rules (gateway-rules.ts): the same file decides for both. */
  readonly rules?: readonly GatewayRule[] | undefined;
  readonly identityHeaders?: Partial<IdentityHeaderNames> | undefined;
}

/** Which edge's headers described the request. */
export type EdgeShape = 'nginx' | 'forwarded' | 'envoy';

/** What the edge said about the request it holds. */
export interface OriginalRequest {
  readonly shape: EdgeShape;
  readonly method: string;
  /** The request target as the client sent it: path and query. */
  readonly target: string;
}

/** A request target is at most this long: longer ones no edge passes intact (RFC 9112 §3). */
const MAX_TARGET_LENGTH = 8192;
/** An HTTP method is a token (RFC 9110 §9.1). */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
/** Visible ASCII without `#`: a fragment never reaches a server, so an edge never sends one. */
const TARGET = /^\/[\x21\x22\x24-\x7e]*$/;

/**
 * The refusals nginx's `auth_request` can pass on are 401 and 403 (any other status is its
 * 500). For nginx another refusal is answered 401 with its true status in this header, and
 * the documented config answers that status.
 */
export const STATUS_HEADER = 'x-oauth-status';
/** The problem body of a refusal, for an edge that cannot return the sub-request's body (nginx). */
export const PROBLEM_HEADER = 'x-oauth-problem';

function refuse(message: string): never {
  throw new OAuthError('parameter_rejected', message, { status: 400 });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The first of a comma-separated forwarding header: the edge nearest the client. */
function firstOf(value: string | string[] | undefined): string | undefined {
  const first = single(value)?.split(',')[0]?.trim();
  return first === '' ? undefined : first;
}

/** The request the edge describes, or a 400 naming what is missing or malformed. */
export function describedRequest(request: FastifyRequest, prefix: string): OriginalRequest {
  const headers = request.headers;
  const url = request.raw.url ?? '/';
  let shape: EdgeShape;
  let target: string | undefined;
  let method: string | undefined;
  let source: string;
  if (headers['x-original-uri'] !== undefined) {
    shape = 'nginx';
    source = 'X-Original-URI';
    target = single(headers['x-original-uri']);
    method = single(headers['x-original-method']);
  } else if (headers['x-forwarded-uri'] !== undefined) {
    shape = 'forwarded';
    source = 'X-Forwarded-Uri';
    target = single(headers['x-forwarded-uri']);
    method = single(headers['x-forwarded-method']);
  } else if (url.startsWith(`${prefix}/`)) {
    shape = 'envoy';
    source = 'the path after the endpoint';
    target = url.slice(prefix.length);
  } else {
    throw new OAuthError(
      'parameter_absent',
      `The edge did not say which request to verify: send X-Original-URI (nginx) or X-Forwarded-Uri (Caddy, Traefik), or append the original path to ${prefix} (Envoy).`,
      { advice: { oauth_parameters_absent: 'X-Original-URI' } },
    );
  }
  method ??= request.method;
  if (!METHOD.test(method)) refuse('The original method is not an HTTP method.');
  if (target === undefined || target.length > MAX_TARGET_LENGTH) {
    refuse(
      `The original request target (${source}) is missing or longer than ${MAX_TARGET_LENGTH} characters.`,
    );
  }
  if (!TARGET.test(target)) {
    refuse(
      `The original request target (${source}) must be a path starting with "/", in visible ASCII, without a fragment ("#").`,
    );
  }
  return { shape, method, target };
}

/** The original request as the provider verifies it. */
function incomingOf(
  request: FastifyRequest,
  original: OriginalRequest,
  requireBodyHash: boolean,
  transport: TransportSettings,
): IncomingRequest {
  const headers = request.headers;
  const question = original.target.indexOf('?');
  const proto = firstOf(headers['x-forwarded-proto'])?.toLowerCase();
  const scheme = proto === 'http' || proto === 'https' ? proto : transport.tls ? 'https' : 'http';
  const host = firstOf(headers['x-forwarded-host']) ?? headers.host ?? '';
  const contentType = headers['content-type'];
  const body = request.body;
  const text = typeof body === 'string' ? body : undefined;
  const bytes = Buffer.isBuffer(body) ? body : undefined;
  const partial = headers['x-envoy-auth-partial-body'] === 'true';
  const hasBody = (text !== undefined && text !== '') || (bytes !== undefined && bytes.length > 0);
  // §3.4.1.3.1: a form body's parameters are signed, so without the body there is nothing to
  // check the signature against. Only a method that carries a body is asked for one.
  if (
    isFormContentType(contentType) &&
    (!hasBody || partial) &&
    original.method !== 'GET' &&
    original.method !== 'HEAD'
  ) {
    throw new OAuthError(
      'parameter_absent',
      'The request has a form body, which its signature covers (RFC 5849 §3.4.1.3.1), and the edge did not pass it on: send the OAuth parameters in the Authorization header or the query and the data as JSON, or use an edge that passes the body (Envoy with with_request_body).',
      { advice: { oauth_parameters_absent: 'body' } },
    );
  }
  // A rule's body hash guards the body: one the edge did not pass is unchecked, so it is
  // refused rather than waved through (only a method that carries a body is asked for one).
  if (requireBodyHash && !hasBody && original.method !== 'GET' && original.method !== 'HEAD') {
    throw new OAuthError(
      'parameter_absent',
      'This path requires oauth_body_hash over the request body, and the edge did not pass the body on: use an edge that passes it (Envoy with with_request_body, Traefik with forwardBody).',
      { advice: { oauth_parameters_absent: 'body' } },
    );
  }
  // The edge adds the client's address last (X-Forwarded-For), for per-source limits.
  const forwardedFor = single(headers['x-forwarded-for'])?.split(',').pop()?.trim();
  return {
    method: original.method,
    scheme,
    host,
    path: question < 0 ? original.target : original.target.slice(0, question),
    query: question < 0 ? '' : original.target.slice(question + 1),
    authorization: headers.authorization,
    contentType,
    body: text,
    rawBody: bytes,
    secure: transport.insecureHttp || scheme === 'https',
    address: forwardedFor === undefined || forwardedFor === '' ? request.ip : forwardedFor,
    // The edge passes the client's own headers on.
    userAgent: headers['user-agent'],
  };
}

/** 200 for the edge to copy: every identity header, empty when absent, so none is forged. */
function allow(
  reply: FastifyReply,
  names: IdentityHeaderNames,
  caller: VerifiedCaller | null,
  extra: Record<string, string> = {},
): FastifyReply {
  return reply
    .code(200)
    .headers({
      'cache-control': 'no-store',
      [names.client]: caller === null ? '' : percentEncode(caller.client.key),
      [names.owner]: caller?.owner?.subject ?? '',
      [names.ownerName]:
        caller?.owner === null || caller === null ? '' : encodeURIComponent(caller.owner.name),
      [names.scope]: caller?.scope ?? '',
      ...extra,
    })
    .send();
}

/** The refusal, in the shape the edge passes on (nginx only passes 401 and 403 on). */
function deny(reply: FastifyReply, shape: EdgeShape | undefined, answer: FailureAnswer) {
  let status = answer.status;
  const headers: Record<string, string> = { ...answer.headers };
  if (status >= 400) {
    headers[STATUS_HEADER] = String(status);
    // The body is a form of ASCII (oauth_problem=…): a header carries it as it is.
    if (/^[\x20-\x7e]*$/.test(answer.body) && answer.body.length <= 2048) {
      headers[PROBLEM_HEADER] = answer.body;
    }
  }
  if (shape === 'nginx' && status !== 401 && status !== 403) status = 401;
  return reply.code(status).headers(headers).send(answer.body);
}

export async function registerForwardAuth(
  app: FastifyInstance,
  provider: Provider,
  options: ForwardAuthOptions,
  transport: TransportSettings,
): Promise<void> {
  const prefix = options.path ?? DEFAULT_FORWARD_AUTH_PATH;
  const trusted = edgeCheck(options.trustedEdges ?? DEFAULT_TRUSTED_EDGES);
  const rules = parseGatewayRules(options.rules ?? []);
  const names = { ...DEFAULT_IDENTITY_HEADERS, ...options.identityHeaders };
  const realm = provider.policy.realm;

  async function verifyForEdge(request: FastifyRequest, reply: FastifyReply) {
    // The connection's own peer: a forwarding header is what is being checked, not a proof.
    if (!trusted(request.raw.socket.remoteAddress)) {
      return deny(
        reply,
        undefined,
        failureAnswer(
          new OAuthError(
            'permission_denied',
            'This address is not a trusted edge: forward-auth answers only the edges configured in forwardAuth.trustedEdges.',
          ),
          realm,
        ),
      );
    }
    let original: OriginalRequest | undefined;
    let incoming: IncomingRequest | undefined;
    let lti = false;
    try {
      original = describedRequest(request, prefix);
      const path = normalizeGatewayPath(original.target);
      const rule = matchRule(rules, original.method, path);
      lti = rule.lti;
      incoming = incomingOf(
        request,
        original,
        rule.access !== 'public' && rule.requireBodyHash,
        transport,
      );
      if (rule.access === 'public') return allow(reply, names, null);
      if (rule.lti) {
        const verified = await provider.verifyLtiLaunch(incoming);
        return allow(reply, names, verified.caller, launchHeaders(verified.launch));
      }
      const verified = await provider.verifyResourceRequest(incoming, {
        tokenRequired: rule.access === 'token',
        scope: rule.scope,
        requireBodyHash: rule.requireBodyHash,
      });
      setRateLimitHeaders(verified.rateLimit, (name, value) => reply.header(name, value));
      return allow(reply, names, verified.caller);
    } catch (error) {
      const answer =
        lti && incoming !== undefined
          ? ltiFailureAnswer(error, realm)
          : failureAnswer(error, realm);
      if (answer.status >= 500) {
        if (answer.status === 503)
          request.log.warn({ err: (error as Error).message }, 'store unavailable');
        else request.log.error({ err: error }, 'unexpected error');
      }
      return deny(reply, original?.shape, answer);
    }
  }

  // The app sets its limit (DEFAULT_BODY_LIMIT unless configured); the same fallback where it does not.
  const bodyLimit = app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
  await app.register(async function forwardAuth(scope) {
    // The body, when an edge sends it (Envoy with_request_body), is the original's.
    keepBodiesForVerification(scope, bodyLimit);
    // Any method: nginx and Envoy ask with the original's.
    for (const url of [prefix, `${prefix}/*`]) {
      scope.route({
        method: ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'],
        url,
        schema: { hide: true },
        handler: verifyForEdge,
      });
    }
  });
}
