/**
 * The Fastify application: the error reply, metrics, and the OAuth routes (flow endpoints,
 * /api/me, advertisement) in a context that keeps form bodies as raw text for our own RFC 5849
 * parser. The people-facing pages are a plugin passed in as `pages` (src/web sits above this
 * layer; src/server.ts composes the two), in a context with their security headers and
 * cookies.
 */
import { registerAuditContext, registerAuditLog } from './audit-log.ts';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import { createErrorHandler } from './error-reply.ts';
import { publicBaseUrl } from './public-url.ts';
import type { PublicOrigin } from './public-url.ts';
import { keepBodiesForVerification } from './incoming-request.ts';
import type { TransportSettings } from './incoming-request.ts';
import { DEFAULT_BODY_LIMIT, defaultPaths } from './options.ts';
import type { AppOptions, FlowPaths } from './options.ts';
import type { IdentityOptions } from '../provider/index.ts';
import { registerAdvertisement } from './routes/advertisement.ts';
import { registerApiMe } from './routes/api-me.ts';
import { registerFlowRoutes } from './routes/flow.ts';
import { serverLogging } from './access-log.ts';
import { pageSecurityHeaders } from './page-security.ts';
import { createRequestIds } from './request-id.ts';
import { registerMetrics } from './metrics.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerDrain } from './drain.ts';
import { registerOpenApi } from './openapi.ts';
import { registerAdminApi } from './admin/index.ts';
import { attachAdminListener } from './admin/admin-app.ts';

/** What the pages plugin receives from the app. */
export interface PagesContext {
  readonly provider: AppOptions['provider'];
  readonly paths: FlowPaths;
  /** Cookies get `Secure` under TLS or a trusted proxy. */
  readonly secureCookies: boolean;
  readonly sessionSecret: string;
  /** How long a sign-in lasts, in seconds; the pages' own default when absent. */
  readonly browserSessionLifetimeSeconds?: number | undefined;
  readonly transport: TransportSettings;
  readonly baseUrlOf: (request: FastifyRequest) => string;
  /** False in gateway mode: `/` belongs to the upstream API. */
  readonly landingPage: boolean;
  /** Where owners sign in (docs/identity.md). */
  readonly identity: IdentityOptions;
}

/** What the operator console plugin receives: served beside the admin API (docs/admin.md "Console"). */
export interface ConsoleContext {
  readonly provider: AppOptions['provider'];
  /** Cookies get `Secure` under TLS or a trusted proxy. */
  readonly secureCookies: boolean;
  readonly sessionSecret: string;
  readonly transport: TransportSettings;
}

export interface BuildOptions extends AppOptions {
  /** The people-facing pages (src/web's plugin), registered in a context of their own. */
  readonly pages?: FastifyPluginAsync<PagesContext> | undefined;
  /** The operator console (src/web/console), on the admin API's listener. */
  readonly console?: FastifyPluginAsync<ConsoleContext> | undefined;
}

const CONNECT_BODY = 'CONNECT is not supported: this server is not a proxy.\n';
const CONNECT_REFUSAL = [
  'HTTP/1.1 405 Method Not Allowed',
  'Allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
  'Content-Type: text/plain; charset=utf-8',
  `Content-Length: ${Buffer.byteLength(CONNECT_BODY)}`,
  'Connection: close',
  '',
  CONNECT_BODY,
].join('\r\n');

/**
 * Answers CONNECT (any target) like any unsupported method: 405, then the connection closes.
 * Latchkey is no forward proxy, so no tunnel is ever opened.
 */
function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  socket.end(CONNECT_REFUSAL);
}

/** The Fastify instance: TLS, the proxy, the body limit, the logs, request ids, serializing. */
function createFastify(
  options: BuildOptions,
  transport: TransportSettings,
  bodyLimit: number,
): FastifyInstance {
  const logging = serverLogging(options.logger);
  const app = Fastify({
    ...logging.fastify,
    ...(options.tls === undefined
      ? {}
      : { https: { cert: options.tls.cert, key: options.tls.key } }),
    trustProxy: transport.trustProxy,
    bodyLimit,
    // A request id per request for the logs; an incoming one is not trusted.
    requestIdHeader: false,
    genReqId: createRequestIds(),
    // One access line per request instead of Fastify's two (access-log.ts).
    logController: logging.logController,
    // Route schemas validate as written: a number is not turned into the string a schema wants.
    ajv: { customOptions: { coerceTypes: false } },
    // While closing, a request that still reaches the server is served, with Connection:
    // close (drain.ts), never refused with Fastify's generic 503 the client would see.
    return503OnClosing: false,
  }) as unknown as FastifyInstance;
  // Buffered log lines are on disk before close() resolves.
  app.addHook('onClose', () => logging.flush());
  // Response schemas describe (route-schemas.ts); JSON is written by JSON.stringify as before,
  // so declaring a response changes no byte a client receives.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  return app;
}

/**
 * The admin API and the operator console: on the public listener, or on a listener of their
 * own when `adminListener` is set.
 */
async function registerAdminSide(
  app: FastifyInstance,
  options: BuildOptions,
  transport: TransportSettings,
  sessionSecret: string,
): Promise<void> {
  const { provider } = options;
  // In gateway mode the public paths are the upstream API's (which may well have an /admin/
  // of its own): the admin API is then served on its own listener only.
  const adminConsole =
    options.console === undefined
      ? undefined
      : {
          plugin: options.console,
          context: {
            provider,
            secureCookies: transport.tls || transport.trustProxy,
            sessionSecret,
            transport,
          },
        };
  if (options.adminListener === undefined) {
    if (options.gateway === undefined) {
      await registerAdminApi(app, provider);
      if (adminConsole !== undefined) {
        await app.register(adminConsole.plugin, adminConsole.context);
      }
    }
  } else {
    await attachAdminListener(app, {
      provider,
      listener: options.adminListener,
      logger: options.logger,
      trustProxy: transport.trustProxy,
      tls: options.tls,
      console: adminConsole,
    });
  }
}

export async function buildApp(options: BuildOptions): Promise<FastifyInstance> {
  const provider = options.provider;
  const paths: FlowPaths = { ...defaultPaths, ...options.paths };
  const transport: TransportSettings = {
    tls: options.tls !== undefined,
    trustProxy: options.trustProxy ?? false,
    insecureHttp: options.insecureHttp ?? false,
  };
  const sessionSecret = options.sessionSecret ?? randomBytes(32).toString('base64url');
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  const app = createFastify(options, transport, bodyLimit);

  // Every absolute URL the server writes: publicUrl, else the listen address, never Host.
  const origin: PublicOrigin = { publicUrl: options.publicUrl, tls: transport.tls };
  const baseUrlOf = (request: FastifyRequest): string => publicBaseUrl(request, origin);

  // Node hands CONNECT to a `connect` listener and, without one, closes the socket unanswered.
  app.server.on('connect', refuseConnect);
  app.setErrorHandler(createErrorHandler(provider.policy.realm));
  // First: it records every route added after it (GET /openapi.json, http/openapi.ts).
  await registerOpenApi(app, { baseUrlOf });
  // Before every other route, so its hooks count them all (docs/events.md).
  registerMetrics(app, { provider, paths, transport, options: options.metrics });
  const drain = registerDrain(app, {
    timeoutMs: options.drainTimeoutMs,
    onDrain: (timeoutMs) => void provider.webhooks.stopWorkers(timeoutMs),
  });
  registerHealthRoutes(app, provider, { isDraining: drain.isDraining });
  registerAuditLog(app, provider);

  await app.register(async function oauthRoutes(scope) {
    keepBodiesForVerification(scope, bodyLimit);
    registerFlowRoutes(scope, provider, paths, transport);
    registerApiMe(scope, provider, transport);
    registerAdvertisement(scope, provider, paths, origin);
  });

  if (options.pages !== undefined) {
    const pages = options.pages;
    await app.register(async function peopleFacingPages(scope) {
      registerAuditContext(scope, provider);
      await scope.register(helmet, pageSecurityHeaders(transport));
      // Only the pages use cookies (sessions, CSRF): registered here, the OAuth endpoints and
      // /api/me do not parse the Cookie header on every request.
      await scope.register(cookie, { secret: sessionSecret });
      await scope.register(pages, {
        provider,
        paths,
        secureCookies: transport.tls || transport.trustProxy,
        sessionSecret,
        browserSessionLifetimeSeconds: options.browserSessionLifetimeSeconds,
        transport,
        baseUrlOf,
        landingPage: options.gateway === undefined,
        identity: options.identity ?? { source: 'local' },
      });
    });
  }

  await registerAdminSide(app, options, transport, sessionSecret);

  if (options.forwardAuth !== undefined) {
    const { registerForwardAuth } = await import('./edge/forward-auth.ts');
    await registerForwardAuth(app, provider, options.forwardAuth, transport);
  }
  if (options.verifyToken !== undefined) {
    const { registerVerifyApi } = await import('./routes/verify.ts');
    await registerVerifyApi(app, provider, { token: options.verifyToken }, transport);
  }

  if (options.gateway !== undefined) {
    // Loaded only in gateway mode: the proxy (undici) is start-up time that a deployment
    // without a gateway does not need.
    const { registerGateway } = await import('./gateway/gateway.ts');
    await registerGateway(app, provider, { bodyLimit, ...options.gateway }, transport);
  }

  if (options.maintenance ?? true) {
    provider.startMaintenance();
  }
  app.addHook('onClose', async () => {
    await provider.close();
  });
  return app;
}
