/**
 * Gateway mode (the spec's fourth endpoint, "any HTTP method and path", for the operator's
 * own API): every request outside Latchkey's own paths is verified, then forwarded by
 * @fastify/http-proxy with the body untouched (streamed, except a form body, which the
 * signature covers and so is read), the protocol parameters and Authorization header
 * removed, and identity headers set — after any incoming copies are dropped, so a caller
 * cannot forge them. Unverified requests never reach the upstream.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import httpProxy from '@fastify/http-proxy';
import type { FastifyHttpProxyOptions } from '@fastify/http-proxy';
import { percentDecode } from '../protocol/index.ts';
import type { Provider } from '../provider/index.ts';
import { checkRules, matchRule } from './gateway-rules.ts';
import type { GatewayRule } from './gateway-rules.ts';
import { toIncomingRequest } from './incoming-request.ts';
import type { TransportSettings } from './incoming-request.ts';
import { identifyCaller } from './middleware/caller.ts';
import type { OAuthCaller } from './middleware/caller.ts';

export interface IdentityHeaderNames {
  readonly client: string;
  readonly owner: string;
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
}

const DEFAULT_HEADERS: IdentityHeaderNames = {
  client: 'X-OAuth-Client',
  owner: 'X-OAuth-Owner',
  scope: 'X-OAuth-Scope',
};

const callers = new WeakMap<object, OAuthCaller | null>();

/** Drops `oauth_*` pairs from a query or form body, keeping every other byte as sent. */
export function withoutProtocolParameters(encoded: string): string {
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

export async function registerGateway(
  app: FastifyInstance,
  provider: Provider,
  options: GatewayOptions,
  transport: TransportSettings,
): Promise<void> {
  const rules = options.rules ?? [];
  checkRules(rules);
  const names = { ...DEFAULT_HEADERS, ...options.identityHeaders };
  const identity = [names.client, names.owner, names.scope].map((name) => name.toLowerCase());
  const responseTimeout = options.responseTimeoutMs ?? 30_000;

  async function verifyForUpstream(request: FastifyRequest): Promise<void> {
    const path = (request.raw.url ?? '/').split('?')[0] ?? '/';
    const rule = matchRule(rules, request.method, path);
    if (rule.access === 'public') {
      callers.set(request, null);
      return;
    }
    const caller = await identifyCaller(provider, toIncomingRequest(request, transport), {
      tokenRequired: rule.access === 'token',
      scope: rule.scope,
    });
    callers.set(request, caller);
    if (typeof request.body === 'string') request.body = withoutProtocolParameters(request.body);
  }

  await app.register(async function gatewayScope(scope) {
    // A form body is read as text for the signature; every other body streams through.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, body),
    );
    const proxyOptions: FastifyHttpProxyOptions = {
      upstream: options.upstream,
      preHandler(request, _reply, done) {
        verifyForUpstream(request).then(() => done(), done);
      },
      undici: {
        connectTimeout: options.connectTimeoutMs ?? 5_000,
        headersTimeout: responseTimeout,
        bodyTimeout: responseTimeout,
      },
      handler(request: FastifyRequest, reply: FastifyReply, _dest: string, replyOptions: object) {
        // Our own destination: the path as sent and the query without oauth_* pairs, byte
        // for byte (the plugin's default re-serializes the query and loses repeated names).
        const url = request.raw.url ?? '/';
        const question = url.indexOf('?');
        const path = question < 0 ? url : url.slice(0, question);
        const query = question < 0 ? '' : withoutProtocolParameters(url.slice(question + 1));
        return reply.from(path, { ...replyOptions, queryString: () => query });
      },
      replyOptions: {
        rewriteRequestHeaders(request, headers) {
          const forwarded: typeof headers = {};
          for (const [name, value] of Object.entries(headers)) {
            if (name === 'authorization' || identity.includes(name)) continue;
            forwarded[name] = value;
          }
          const caller = callers.get(request);
          if (caller) {
            forwarded[names.client.toLowerCase()] = caller.client.key;
            if (caller.owner !== null) forwarded[names.owner.toLowerCase()] = caller.owner.username;
            if (caller.scope !== null) forwarded[names.scope.toLowerCase()] = caller.scope;
          }
          return forwarded;
        },
        onError(reply, { error }) {
          const { statusCode, code } = error as Error & { statusCode?: number; code?: string };
          const timedOut = statusCode === 504 || /TIMEOUT/i.test(code ?? '');
          reply
            .code(timedOut ? 504 : 502)
            .header('content-type', 'text/plain; charset=utf-8')
            .send(
              timedOut
                ? 'Gateway timeout: the upstream API did not answer in time.'
                : 'Bad gateway: the upstream API could not be reached.',
            );
        },
      },
    };
    await scope.register(httpProxy, proxyOptions);
  });
}
