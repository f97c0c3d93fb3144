/**
 * Gateway mode (the spec's fourth endpoint, "any HTTP method and path", for the operator's
 * own API): every request outside Latchkey's own paths is verified, then forwarded
 * (gateway-forward.ts) with the body untouched (streamed, except a form body, which the
 * signature covers and so is read), the protocol parameters and Authorization header
 * removed, and identity and forwarding headers set (the owner by its subject and its display
 * name; the client's address, scheme and host as Latchkey resolved them) — after any incoming
 * copies are dropped, so a caller cannot forge them. Unverified requests never reach the
 * upstream.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, percentDecode, percentEncode } from '../../protocol/index.ts';
import type { LtiLaunch, Provider } from '../../provider/index.ts';
import { latchkeyCookieNames } from '../cookie-names.ts';
import { connectionOptions, createUpstream, isHopByHop } from './forward.ts';
import type { UpstreamHeaders } from './forward.ts';
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
import {
  clientOrigin,
  needsBodyBytes,
  readBodyBytes,
  toIncomingRequest,
} from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';
import { isLtiHeader, launchHeaders } from '../lti/lti-headers.ts';
import { ltiFailureAnswer } from '../lti/lti-reply.ts';
import { identifyCaller } from '../middleware/caller.ts';
import type { OAuthCaller } from '../middleware/caller.ts';

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
  /** The normalized path (gateway-path.ts): the rules match it and the upstream receives it. */
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

/** A Cookie header without Latchkey's own cookies (cookie-names.ts), the rest as sent. */
export function withoutLatchkeyCookies(header: string): string {
  if (!header.includes('latchkey_')) return header;
  return header
    .split(';')
    .filter((pair) => {
      const equals = pair.indexOf('=');
      return !latchkeyCookieNames.has((equals < 0 ? pair : pair.slice(0, equals)).trim());
    })
    .map((pair) => pair.trim())
    .join('; ');
}

/** The forwarding headers the gateway always sets itself (docs/gateway.md). */
const SET_BY_GATEWAY = new Set(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']);

/**
 * A header by which a proxy tells who the client is, how and to which host it came
 * (`Forwarded`, RFC 7239; `X-Forwarded-*`; `X-Real-IP`), `name` lower case with `_` read as
 * `-`, as WSGI, CGI and PHP read it.
 */
function isForwardingHeader(name: string): boolean {
  return name === 'forwarded' || name === 'x-real-ip' || name.startsWith('x-forwarded-');
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

export async function registerGateway(
  app: FastifyInstance,
  provider: Provider,
  options: GatewayOptions,
  transport: TransportSettings,
): Promise<void> {
  const rules = parseGatewayRules(options.rules ?? []);
  const names = { ...DEFAULT_IDENTITY_HEADERS, ...options.identityHeaders };
  const identity = [names.client, names.owner, names.ownerName, names.scope].map((name) =>
    name.toLowerCase(),
  );
  const [client, owner, ownerName, scopeHeader] = identity as [string, string, string, string];
  const identitySpellings = new Set(identity.map((name) => name.replaceAll('_', '-')));
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  const uploadTimeoutMs = options.uploadTimeoutMs ?? DEFAULT_UPLOAD_TIMEOUT_MS;
  const maxUploads = options.maxUploadsPerAddress ?? DEFAULT_MAX_UPLOADS_PER_ADDRESS;
  /** Bodies under way by address: an entry only while one is (docs/gateway.md, "Slow uploads"). */
  const uploadsByAddress = new Map<string, number>();

  const upstream = createUpstream(options.upstream, {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS,
  });

  /** The headers the upstream is sent: the client's, less what is not for it, plus identity. */
  function upstreamHeaders(request: FastifyRequest): UpstreamHeaders {
    const incoming = request.raw.headers;
    // A name listed in Connection goes with it, so a client cannot use it to strip the
    // identity headers set below (they are added after this loop).
    const listed = connectionOptions(incoming.connection);
    const headers: UpstreamHeaders = { host: upstream.host };
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || isHopByHop(name, listed) || name === 'authorization') continue;
      // Every spelling an upstream may read as an identity header: WSGI, CGI, PHP and many
      // frameworks turn both `X-OAuth-Owner` and `X_OAuth_Owner` into HTTP_X_OAUTH_OWNER, so
      // a copy with underscores is as forged as one with hyphens.
      const spelled = name.replaceAll('_', '-');
      if (identitySpellings.has(spelled) || isLtiHeader(name)) continue;
      // Who the client is and how it came are for a proxy to say: a client's own copies are
      // dropped (they would name any address or host it likes), a trusted proxy's are kept,
      // except those set below. A proxy writes them with hyphens: other spellings never pass.
      if (
        isForwardingHeader(spelled) &&
        (!transport.trustProxy || name !== spelled || SET_BY_GATEWAY.has(name))
      ) {
        continue;
      }
      headers[name] = value;
    }
    // The client as Latchkey resolved it (the connection's peer, or what a trusted proxy
    // says), the address the rate limits and the audit trail use too.
    const origin = clientOrigin(request.raw, transport);
    headers['x-forwarded-for'] = request.ip;
    headers['x-forwarded-proto'] = origin.scheme;
    if (origin.host !== '') headers['x-forwarded-host'] = origin.host;
    // Latchkey's own session, CSRF and sign-in cookies are its credentials, not the app's:
    // the upstream gets every other cookie and never these.
    const cookies = headers['cookie'];
    if (typeof cookies === 'string') {
      const kept = withoutLatchkeyCookies(cookies);
      if (kept === '') delete headers['cookie'];
      else headers['cookie'] = kept;
    }
    const caller = (request as FastifyRequest & WithCaller).latchkeyGatewayCaller;
    if (caller !== null) {
      // Percent-encoded (§3.6): a key migrated from another provider may hold characters a
      // header cannot carry; a key Latchkey generated is unreserved and unchanged.
      headers[client] = percentEncode(caller.client.key);
      if (caller.owner !== null) {
        // A subject is visible ASCII (provider/accounts/owners.ts); a name may be any text, so it is
        // percent-encoded to survive as a header value.
        headers[owner] = caller.owner.subject;
        headers[ownerName] = encodeURIComponent(caller.owner.name);
      }
      if (caller.scope !== null) headers[scopeHeader] = caller.scope;
    }
    const launch = (request as FastifyRequest & WithCaller).latchkeyGatewayLaunch;
    if (launch !== null) Object.assign(headers, launchHeaders(launch));
    return headers;
  }

  /**
   * Counts a body under way against its address and gives it `uploadTimeoutMs` to arrive.
   * Without both a client sending a byte now and then holds its request open for as long as
   * it likes, and many such clients hold every connection the gateway has (docs/security.md).
   */
  function watchUpload(request: FastifyRequest, reply: FastifyReply): void {
    const address = request.ip;
    const under = uploadsByAddress.get(address) ?? 0;
    if (under >= maxUploads) {
      throw new OAuthError(
        'rate_limit_exceeded',
        `At most ${maxUploads} request bodies at a time from one address; send this one when another is done.`,
        { status: 429, retryAfterSeconds: 1 },
      );
    }
    uploadsByAddress.set(address, under + 1);
    const upload = new AbortController();
    (request as FastifyRequest & WithCaller).latchkeyGatewayUpload = upload;
    let watching = true;
    const release = (): void => {
      if (!watching) return;
      watching = false;
      clearTimeout(timer);
      const left = (uploadsByAddress.get(address) ?? 1) - 1;
      if (left <= 0) uploadsByAddress.delete(address);
      else uploadsByAddress.set(address, left);
    };
    const timer = setTimeout(() => {
      release();
      if (request.raw.complete) return;
      const error = new OAuthError(
        'parameter_rejected',
        `The request body did not arrive within ${uploadTimeoutMs / 1000} s; send it at once.`,
        { status: 408 },
      );
      // The upstream request (if one was opened) ends, freeing its connection; the client is
      // answered 408 if nothing was answered yet, and its connection closed either way.
      upload.abort(error);
      if (reply.sent || reply.raw.headersSent) {
        reply.raw.destroy();
        return;
      }
      reply.send(error);
    }, uploadTimeoutMs).unref();
    // The body is in once the request ends; the request is over once its answer is.
    request.raw.once('end', release);
    reply.raw.once('close', release);
  }

  async function verifyForUpstream(request: FastifyRequest, rule: ResolvedRule): Promise<void> {
    if (rule.access === 'public') {
      // No caller (the decoration's default), and no protocol parameters either: a client
      // that signs every request still sends them, and the upstream is never shown them.
      if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
      return;
    }
    if (rule.lti) {
      const verified = await provider.verifyLtiLaunch(toIncomingRequest(request, transport));
      (request as FastifyRequest & WithCaller).latchkeyGatewayCaller = verified.caller;
      (request as FastifyRequest & WithCaller).latchkeyGatewayLaunch = verified.launch;
      if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
      return;
    }
    const caller = await identifyCaller(provider, toIncomingRequest(request, transport), {
      tokenRequired: rule.access === 'token',
      scope: rule.scope,
      requireBodyHash: rule.requireBodyHash,
    });
    (request as FastifyRequest & WithCaller).latchkeyGatewayCaller = caller;
    if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
  }

  await app.register(async function gatewayScope(scope) {
    // Requests under way are answered first: Fastify closes the server before this runs.
    scope.addHook('onClose', async () => {
      await upstream.close();
    });
    // The proxied routes are the upstream's API, not Latchkey's: left out of /openapi.json.
    scope.addHook('onRoute', function hideProxiedRoute(route) {
      route.schema ??= { hide: true };
    });
    // A form body is read as text for the signature; every other body streams through.
    scope.decorateRequest('latchkeyGatewayCaller', null);
    scope.decorateRequest('latchkeyGatewayLaunch', null);
    scope.decorateRequest('latchkeyGatewayPath', '/');
    scope.decorateRequest('latchkeyGatewayRule', null);
    scope.decorateRequest('latchkeyGatewayUpload', null);
    // Normalized and matched once, before anything reads the path or the rule; an ambiguous
    // path is a 400 here.
    scope.addHook('onRequest', async function normalizePath(request, reply) {
      const path = normalizeGatewayPath(request.raw.url ?? '/');
      (request as FastifyRequest & WithCaller).latchkeyGatewayPath = path;
      (request as FastifyRequest & WithCaller).latchkeyGatewayRule = matchRule(
        rules,
        request.method,
        path,
      );
      if (hasBody(request)) watchUpload(request, reply);
    });
    // An answer given before the body was read (a refusal, a timeout) ends the connection:
    // the rest of the body would otherwise be read, at the client's pace, to reach the next
    // request. (The upstream's answers say the same in gateway-forward.ts.)
    scope.addHook('onSend', async function closeUnreadBody(request, reply) {
      if (!request.raw.complete && hasBody(request)) reply.header('connection', 'close');
    });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit },
      (_request, body, done) => done(null, body),
    );
    // Any other body streams through, unless oauth_body_hash must be checked against it:
    // then its bytes are read (up to the body limit), verified, and exactly those forwarded.
    scope.addContentTypeParser('*', function otherBody(request, payload, done) {
      const rule = (request as FastifyRequest & WithCaller).latchkeyGatewayRule;
      if (rule.access === 'public' || !needsBodyBytes(request.raw, rule.requireBodyHash)) {
        done(null, payload);
        return;
      }
      readBodyBytes(payload, bodyLimit).then((bytes) => done(null, bytes), done);
    });
    async function verified(
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<FastifyReply | undefined> {
      const path = (request as FastifyRequest & WithCaller).latchkeyGatewayPath;
      const rule = (request as FastifyRequest & WithCaller).latchkeyGatewayRule;
      try {
        await verifyForUpstream(request, rule);
      } catch (error) {
        if (!(error instanceof OAuthError) || !rule.lti) throw error;
        // A launch is a person's browser sent by the LMS: answered for a person.
        const answer = ltiFailureAnswer(error, provider.policy.realm);
        return reply.code(answer.status).headers(answer.headers).send(answer.body);
      }
      // Verified against the target as sent (the signature covers it); from here on the
      // request is the normalized path, as the upstream receives it (and the access log shows).
      const url = request.raw.url ?? '/';
      const question = url.indexOf('?');
      request.raw.url = question < 0 ? path : path + url.slice(question);
      return undefined;
    }

    function forward(request: FastifyRequest, reply: FastifyReply): void {
      // The normalized path the rules matched, and the query without oauth_* pairs byte for
      // byte (re-serializing it would lose repeated names and the client's encoding).
      const path = (request as FastifyRequest & WithCaller).latchkeyGatewayPath;
      const url = request.raw.url ?? '/';
      const question = url.indexOf('?');
      const query = question < 0 ? '' : withoutProtocolParameters(url.slice(question + 1));
      const headers = upstreamHeaders(request);
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
      upstream.forward(
        request,
        reply,
        query === '' ? path : `${path}?${query}`,
        headers,
        forwarded,
        (request as FastifyRequest & WithCaller).latchkeyGatewayUpload?.signal,
      );
    }

    for (const url of ['/', '/*']) {
      scope.route({ method: PROXIED_METHODS, url, preHandler: verified, handler: forward });
    }
  });
}
