/**
 * Gateway mode (the spec's fourth endpoint, "any HTTP method and path", for the operator's
 * own API): every request outside Latchkey's own paths is verified, then forwarded
 * (forward.ts, with the headers of upstream-headers.ts) with the body untouched (streamed, except a form body, which the
 * signature covers and so is read), the protocol parameters and Authorization header
 * removed, and identity and forwarding headers set (the owner by its subject and its display
 * name; the client's address, scheme and host as Latchkey resolved them) — after any incoming
 * copies are dropped, so a caller cannot forge them. Unverified requests never reach the
 * upstream.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, percentDecode } from '../../protocol/index.ts';
import type { LtiLaunch, Provider } from '../../provider/index.ts';
import { createUpstream } from './forward.ts';
import type { Upstream, UpstreamHeaders } from './forward.ts';
import { normalizeGatewayPath } from './path.ts';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_IDENTITY_HEADERS,
  DEFAULT_MAX_UPLOADS_PER_ADDRESS,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  DEFAULT_UPLOAD_TIMEOUT_MS,
} from './defaults.ts';
import { matchRule, parseGatewayRules } from './rules.ts';
import type { GatewayRule, ResolvedRule } from './rules.ts';
import { DEFAULT_BODY_LIMIT } from '../options.ts';
import { needsBodyBytes, readBodyBytes, toIncomingRequest } from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';
import { ltiFailureAnswer } from '../lti/lti-reply.ts';
import { identifyCaller } from '../middleware/caller.ts';
import type { OAuthCaller } from '../middleware/caller.ts';
import { uploadWatch } from './uploads.ts';
import { upstreamHeadersWriter } from './upstream-headers.ts';

export interface IdentityHeaderNames {
  readonly client: string;
  /** The owner's subject: the upstream's own id of the user (docs/identity.md). */
  readonly owner: string;
  /** The owner's display name, percent-encoded UTF-8 (RFC 3986 §2.1). */
  readonly ownerName: string;
  readonly scope: string;
}

export interface GatewayOptions {
  /** The API to protect, e.g. `http://127.0.0.1:3000`. */
  readonly upstream: string;
  readonly rules?: readonly GatewayRule[] | undefined;
  readonly identityHeaders?: Partial<IdentityHeaderNames> | undefined;
  /** Give up connecting to the upstream after this long: 504 (default 5 s). */
  readonly connectTimeoutMs?: number | undefined;
  /** Give up waiting for the upstream's answer after this long: 504 (default 30 s). */
  readonly responseTimeoutMs?: number | undefined;
  /** A request body must be in this long after the request began: 408 (default 60 s). */
  readonly uploadTimeoutMs?: number | undefined;
  /** Bodies one address may be sending at once: 429 beyond (default 16). */
  readonly maxUploadsPerAddress?: number | undefined;
  /**
   * The largest body read, in bytes (a form body, or one read for its `oauth_body_hash`):
   * 413 beyond; a body that streams through is not bounded. Default: the app's
   * (`DEFAULT_BODY_LIMIT`).
   */
  readonly bodyLimit?: number | undefined;
}

/** Set on the request (decorations, so every request keeps one shape). */
interface WithCaller {
  /** The normalized path (path.ts): the rules match it and the upstream receives it. */
  latchkeyGatewayPath: string;
  /** The rule for the request's method and path, matched once when the request arrives. */
  latchkeyGatewayRule: ResolvedRule;
  /** Set by verification. */
  latchkeyGatewayCaller: OAuthCaller | null;
  /** Set on a verified launch on an `lti` path (docs/lti.md). */
  latchkeyGatewayLaunch: LtiLaunch | null;
  /** Aborted when the request's body is too slow to arrive (a request with a body only). */
  latchkeyGatewayUpload: AbortController | null;
}

type GatewayRequest = FastifyRequest & WithCaller;

/** Drops `oauth_*` pairs from a query or form body, keeping every other byte as sent. */
export function withoutProtocolParameters(encoded: string): string {
  // A name decodes to `oauth_…` only if it is spelled so or percent-encoded: most queries
  // have neither and are kept as they are without splitting.
  if (!encoded.includes('oauth_') && !encoded.includes('%')) return encoded;
  return encoded
    .split('&')
    .filter((pair) => {
      const rawName = pair.slice(0, pair.includes('=') ? pair.indexOf('=') : pair.length);
      try {
        return !percentDecode(rawName.replaceAll('+', ' ')).startsWith('oauth_');
      } catch {
        return true; // verification already refused malformed encoding
      }
    })
    .join('&');
}

/** True when a request has a body still to arrive (RFC 9112 §6.3: a length or a coding). */
function hasBody(request: FastifyRequest): boolean {
  const headers = request.raw.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** The methods the gateway forwards: those of a REST API (a request with any other finds no route). */
const PROXIED_METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'];

/** What the gateway's hooks and handlers share, built once when it is registered. */
interface Gateway {
  readonly provider: Provider;
  readonly transport: TransportSettings;
  readonly rules: readonly GatewayRule[];
  readonly bodyLimit: number;
  readonly upstream: Upstream;
  readonly headersFor: ReturnType<typeof upstreamHeadersWriter>;
  readonly watchUpload: ReturnType<typeof uploadWatch>;
}

export async function registerGateway(
  app: FastifyInstance,
  provider: Provider,
  options: GatewayOptions,
  transport: TransportSettings,
): Promise<void> {
  const upstream = createUpstream(options.upstream, {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS,
  });
  const names = { ...DEFAULT_IDENTITY_HEADERS, ...options.identityHeaders };
  const gateway: Gateway = {
    provider,
    transport,
    rules: parseGatewayRules(options.rules ?? []),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    upstream,
    headersFor: upstreamHeadersWriter(names, transport, upstream.host),
    watchUpload: uploadWatch({
      uploadTimeoutMs: options.uploadTimeoutMs ?? DEFAULT_UPLOAD_TIMEOUT_MS,
      maxUploadsPerAddress: options.maxUploadsPerAddress ?? DEFAULT_MAX_UPLOADS_PER_ADDRESS,
    }),
  };
  await app.register(async function gatewayScope(scope) {
    prepareRequests(scope, gateway);
    readBodies(scope, gateway);
    for (const url of ['/', '/*']) {
      scope.route({
        method: PROXIED_METHODS,
        url,
        preHandler: (request, reply) => verified(gateway, request as GatewayRequest, reply),
        handler: (request, reply) => forward(gateway, request as GatewayRequest, reply),
      });
    }
  });
}

/** The scope's hooks: each request's path normalized and its rule matched, once. */
function prepareRequests(scope: FastifyInstance, gateway: Gateway): void {
  // Requests under way are answered first: Fastify closes the server before this runs.
  scope.addHook('onClose', async () => {
    await gateway.upstream.close();
  });
  // The proxied routes are the upstream's API, not Latchkey's: left out of /openapi.json.
  scope.addHook('onRoute', function hideProxiedRoute(route) {
    route.schema ??= { hide: true };
  });
  scope.decorateRequest('latchkeyGatewayCaller', null);
  scope.decorateRequest('latchkeyGatewayLaunch', null);
  scope.decorateRequest('latchkeyGatewayPath', '/');
  scope.decorateRequest('latchkeyGatewayRule', null);
  scope.decorateRequest('latchkeyGatewayUpload', null);
  // Normalized and matched once, before anything reads the path or the rule; an ambiguous
  // path is a 400 here.
  scope.addHook('onRequest', async function normalizePath(request, reply) {
    const prepared = request as GatewayRequest;
    const path = normalizeGatewayPath(request.raw.url ?? '/');
    prepared.latchkeyGatewayPath = path;
    prepared.latchkeyGatewayRule = matchRule(gateway.rules, request.method, path);
    if (hasBody(request)) prepared.latchkeyGatewayUpload = gateway.watchUpload(request, reply);
  });
  // An answer given before the body was read (a refusal, a timeout) ends the connection:
  // the rest of the body would otherwise be read, at the client's pace, to reach the next
  // request. (The upstream's answers say the same in forward.ts.)
  scope.addHook('onSend', async function closeUnreadBody(request, reply) {
    if (!request.raw.complete && hasBody(request)) reply.header('connection', 'close');
  });
}

/** A form body is read as text for the signature; every other body streams through. */
function readBodies(scope: FastifyInstance, gateway: Gateway): void {
  const { bodyLimit } = gateway;
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_request, body, done) => done(null, body),
  );
  // Any other body streams through, unless oauth_body_hash must be checked against it:
  // then its bytes are read (up to the body limit), verified, and exactly those forwarded.
  scope.addContentTypeParser('*', function otherBody(request, payload, done) {
    const rule = (request as GatewayRequest).latchkeyGatewayRule;
    if (rule.access === 'public' || !needsBodyBytes(request.raw, rule.requireBodyHash)) {
      done(null, payload);
      return;
    }
    readBodyBytes(payload, bodyLimit).then((bytes) => done(null, bytes), done);
  });
}

/** Verifies the request as its rule says; sets the caller (and the launch on an `lti` path). */
async function verifyForUpstream(
  gateway: Gateway,
  request: GatewayRequest,
  reply: FastifyReply,
): Promise<void> {
  const { provider, transport } = gateway;
  const rule = request.latchkeyGatewayRule;
  if (rule.access === 'public') {
    // No caller (the decoration's default), and no protocol parameters either: a client
    // that signs every request still sends them, and the upstream is never shown them.
    if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
    return;
  }
  if (rule.lti) {
    const verified = await provider.verifyLtiLaunch(toIncomingRequest(request, transport));
    request.latchkeyGatewayCaller = verified.caller;
    request.latchkeyGatewayLaunch = verified.launch;
    if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
    return;
  }
  request.latchkeyGatewayCaller = await identifyCaller(
    provider,
    toIncomingRequest(request, transport),
    {
      tokenRequired: rule.access === 'token',
      scope: rule.scope,
      requireBodyHash: rule.requireBodyHash,
    },
    // On the response itself: the upstream's answer is written to it directly (forward.ts).
    (name, value) => reply.raw.setHeader(name, value),
  );
  if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
}

/** preHandler: verified, or answered (a launch's failure is answered for a person). */
async function verified(
  gateway: Gateway,
  request: GatewayRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  try {
    await verifyForUpstream(gateway, request, reply);
  } catch (error) {
    if (!(error instanceof OAuthError) || !request.latchkeyGatewayRule.lti) throw error;
    // A launch is a person's browser sent by the LMS: answered for a person.
    const answer = ltiFailureAnswer(error, gateway.provider.policy.realm);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  }
  // Verified against the target as sent (the signature covers it); from here on the
  // request is the normalized path, as the upstream receives it (and the access log shows).
  const url = request.raw.url ?? '/';
  const question = url.indexOf('?');
  const path = request.latchkeyGatewayPath;
  request.raw.url = question < 0 ? path : path + url.slice(question);
  return undefined;
}

/** The handler: the verified request, sent on to the upstream. */
function forward(gateway: Gateway, request: GatewayRequest, reply: FastifyReply): void {
  // The normalized path the rules matched, and the query without oauth_* pairs byte for
  // byte (re-serializing it would lose repeated names and the client's encoding).
  const path = request.latchkeyGatewayPath;
  const url = request.raw.url ?? '/';
  const question = url.indexOf('?');
  const query = question < 0 ? '' : withoutProtocolParameters(url.slice(question + 1));
  const headers: UpstreamHeaders = gateway.headersFor(request, {
    caller: request.latchkeyGatewayCaller,
    launch: request.latchkeyGatewayLaunch,
  });
  // A body read for its hash goes on as the same bytes, a form body as the text verified
  // (its protocol parameters dropped), any other body streams through.
  const body = request.body;
  let forwarded: Readable | Buffer | string | null = null;
  if (typeof body === 'string') {
    forwarded = body;
    headers['content-length'] = String(Buffer.byteLength(body));
  } else if (Buffer.isBuffer(body) || body instanceof Readable) {
    forwarded = body;
  }
  gateway.upstream.forward(
    request,
    reply,
    query === '' ? path : `${path}?${query}`,
    headers,
    forwarded,
    request.latchkeyGatewayUpload?.signal,
  );
}
