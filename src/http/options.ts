/** What `buildApp` takes: the provider and the transport settings around it. */
import type { FastifyServerOptions } from 'fastify';
import type { IdentityOptions, Provider } from '../provider/index.ts';
import type { ForwardAuthOptions } from './edge/forward-auth.ts';
import type { GatewayOptions } from './gateway/gateway.ts';
import type { MetricsOptions } from './metrics-access.ts';
import type { AdminListener } from './admin/admin-app.ts';

export interface FlowPaths {
  readonly requestToken: string;
  readonly authorize: string;
  /** "Sign in with": the authorization page that sends back an owner who already allowed the client. */
  readonly authenticate: string;
  readonly accessToken: string;
  /** Where a client ends the token it signs with (POST). */
  readonly invalidateToken: string;
}

export const defaultPaths: FlowPaths = {
  requestToken: '/oauth/request_token',
  authorize: '/oauth/authorize',
  authenticate: '/oauth/authenticate',
  accessToken: '/oauth/access_token',
  invalidateToken: '/oauth/invalidate_token',
};

/** The largest request body read, in bytes: the app's OAuth routes and the middleware. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface AppOptions {
  readonly provider: Provider;
  readonly paths?: Partial<FlowPaths> | undefined;
  /** PEM text; when set the app serves HTTPS. */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined;
  /** Base string URI and client address follow Forwarded / X-Forwarded-* only when set. */
  readonly trustProxy?: boolean | undefined;
  /** Allow the flow endpoints and PLAINTEXT over plain HTTP off loopback. */
  readonly insecureHttp?: boolean | undefined;
  /** Absolute base URL to advertise, when the server cannot know it (behind a proxy). */
  readonly publicUrl?: string | undefined;
  readonly logger?: FastifyServerOptions['logger'];
  /** Largest request body on the OAuth routes, in bytes. */
  readonly bodyLimit?: number | undefined;
  /** Signs the session cookie; random per start when absent (sessions end on restart). */
  readonly sessionSecret?: string | undefined;
  /** How long an owner's sign-in on the pages lasts, in seconds (the pages' default: 12 hours). */
  readonly browserSessionLifetimeSeconds?: number | undefined;
  /** Gateway mode: verify and forward every request outside Latchkey's own paths. */
  readonly gateway?: GatewayOptions | undefined;
  /** Forward-auth for an edge (nginx, Caddy, Traefik, Envoy; docs/edge.md): off when absent. */
  readonly forwardAuth?: ForwardAuthOptions | undefined;
  /** `POST /verify` for services, answering `Authorization: Bearer <this>`: off when absent. */
  readonly verifyToken?: string | undefined;
  /** Who may read GET /metrics (default: direct loopback peers only). */
  readonly metrics?: MetricsOptions | undefined;
  /** Where owners sign in on the pages (docs/identity.md); Latchkey's own accounts by default. */
  readonly identity?: IdentityOptions | undefined;
  /** The longest wait for requests in flight once closing began (drain.ts). */
  readonly drainTimeoutMs?: number | undefined;
  /**
   * The admin API on a listener of its own (docs/admin.md); absent, it is served on this one,
   * except in gateway mode, where it is then not served at all.
   */
  readonly adminListener?: AdminListener | undefined;
  /** Start the provider's periodic upkeep with the server (default true). */
  readonly maintenance?: boolean | undefined;
}
