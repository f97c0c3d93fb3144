/**
 * The benchmark scenarios, each with the server it runs against. Servers are started
 * once per round (pinned to the server core), run their scenarios in order, and stop.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { WorkloadConfig } from './load/generator.ts';
import type { RequestSpec } from './load/signed-request.ts';
import { ROOT } from './processes.ts';
import { NGINX_BINARY } from './servers/nginx-config.ts';
import type { SeededCredentials } from './seed/seed-latchkey.ts';
import { startSlowUploads } from './faults/slow-upload.ts';

export type ServerId =
  | 'bare-http'
  | 'bare-fastify'
  | 'lean'
  | 'latchkey'
  | 'latchkey-heap128'
  | 'latchkey-1k'
  | 'latchkey-large'
  | 'latchkey-flows'
  | 'latchkey-logged'
  | 'gateway'
  | 'bare-proxy'
  | 'fastify-proxy'
  | 'passport'
  | 'oauthlib'
  | 'forward-auth';

export interface ServerDef {
  readonly id: ServerId;
  /** Why it cannot run yet, or undefined when it can. */
  readonly unavailable: () => string | undefined;
  /** Token credentials to seed (Latchkey servers only). */
  readonly tokens?: number | 'large';
  /** Measure `latchkey serve`'s start-up on this database too. */
  readonly startup?: boolean;
  /** Node flags for this Latchkey server beyond those `npm start` gives it. */
  readonly nodeFlags?: readonly string[];
}

export interface WorkloadContext {
  /** `127.0.0.1:PORT` */
  readonly host: string;
  readonly credentials: SeededCredentials;
  /** Requests to pre-sign for a pooled (RSA) run. */
  readonly poolSize: number;
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly server: ServerId;
  readonly workload: (context: WorkloadContext) => WorkloadConfig;
  /** Report complete flows per second rather than requests. */
  readonly unit?: 'flows';
  /** Paced at a fraction of another scenario's rate in the same round. */
  readonly pace?: { readonly of: string; readonly fraction: number };
  /** Pre-signed (RSA): the pool is sized from the previous round's rate. */
  readonly pooled?: boolean;
  /** Drive the gateway's upstream directly rather than the server itself. */
  readonly target?: 'upstream';
  /**
   * An attack (bench/faults/) started before the scenario is measured and stopped after:
   * the figures are those of the workload while it runs.
   */
  readonly fault?: (context: WorkloadContext) => Promise<Fault>;
}

export interface Fault {
  /** Why the fault did not hold to the end of the measurement, or undefined when it did. */
  readonly check: () => string | undefined;
  readonly stop: () => void;
}

const latchkeyMissing = () =>
  existsSync(`${ROOT}src/http/app.ts`) ? undefined : 'not available yet (src/http/app.ts)';
const gatewayMissing = () =>
  existsSync(`${ROOT}src/http/gateway/gateway.ts`) || existsSync(`${ROOT}src/http/gateway.ts`)
    ? latchkeyMissing()
    : 'not available yet: the gateway does not exist';

/**
 * The peers are installed by npm (passport-http-oauth) and by .ci/install-edges.sh (gunicorn,
 * python3-oauthlib). Under CI a missing one is not skipped: the run tries it and fails.
 */
const inCI = process.env['CI'] === 'true' || process.env['CI'] === '1';
const peerMissing = (problem: () => string | undefined) => () => (inCI ? undefined : problem());
const passportMissing = peerMissing(() =>
  existsSync(`${ROOT}node_modules/passport-http-oauth`)
    ? undefined
    : 'passport-http-oauth is not installed (npm install)',
);
const oauthlibMissing = peerMissing(() => {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import oauthlib'], { stdio: 'ignore' });
  } catch {
    return 'python3-oauthlib is not installed (bash .ci/install-edges.sh)';
  }
  return existsSync('/usr/bin/gunicorn')
    ? undefined
    : 'gunicorn is not installed (bash .ci/install-edges.sh)';
});
const nginxMissing = () =>
  !existsSync(`${ROOT}src/http/edge/forward-auth.ts`)
    ? 'not available yet: forward-auth does not exist'
    : !existsSync(NGINX_BINARY)
      ? `${NGINX_BINARY} not found (bash .ci/install-edges.sh installs it)`
      : latchkeyMissing();

export const servers: readonly ServerDef[] = [
  { id: 'bare-http', unavailable: () => undefined },
  { id: 'bare-fastify', unavailable: () => undefined },
  { id: 'lean', unavailable: () => undefined },
  { id: 'latchkey', unavailable: latchkeyMissing, tokens: 1 },
  {
    id: 'latchkey-heap128',
    unavailable: latchkeyMissing,
    tokens: 1,
    nodeFlags: ['--initial-old-space-size=128'],
  },
  { id: 'latchkey-1k', unavailable: latchkeyMissing, tokens: 1000, startup: true },
  { id: 'latchkey-large', unavailable: latchkeyMissing, tokens: 'large', startup: true },
  { id: 'latchkey-flows', unavailable: latchkeyMissing, tokens: 1 },
  { id: 'latchkey-logged', unavailable: latchkeyMissing, tokens: 1 },
  { id: 'gateway', unavailable: gatewayMissing, tokens: 1 },
  { id: 'bare-proxy', unavailable: () => undefined },
  { id: 'fastify-proxy', unavailable: () => undefined },
  { id: 'passport', unavailable: passportMissing },
  { id: 'oauthlib', unavailable: oauthlibMissing },
  { id: 'forward-auth', unavailable: nginxMissing, tokens: 1 },
];

const fixed =
  (path: string) =>
  (c: WorkloadContext): WorkloadConfig => ({
    kind: 'fixed',
    request: `GET ${path} HTTP/1.1\r\nHost: ${c.host}\r\n\r\n`,
  });

function spec(c: WorkloadContext, overrides: Partial<RequestSpec> = {}): RequestSpec {
  return {
    method: 'GET',
    host: c.host,
    path: '/api/me',
    transmission: 'header',
    signatureMethod: 'HMAC-SHA1',
    client: c.credentials.hmacClient,
    token: c.credentials.token,
    ...overrides,
  };
}

const signed =
  (overrides: Partial<RequestSpec> = {}) =>
  (c: WorkloadContext): WorkloadConfig => ({ kind: 'signed', specs: [spec(c, overrides)] });

const rsa = (c: WorkloadContext): WorkloadConfig => ({
  kind: 'presigned',
  count: c.poolSize,
  spec: spec(c, {
    signatureMethod: 'RSA-SHA1',
    client: c.credentials.rsaClient,
    token: c.credentials.rsaToken,
  }),
});

/** Spread over many stored tokens: one signer per sampled token, in turn. */
const manyTokens = (c: WorkloadContext): WorkloadConfig => ({
  kind: 'signed',
  specs: c.credentials.sample.map((token) => spec(c, { token })),
});

export const scenarios: readonly Scenario[] = [
  {
    id: 'limit',
    title: 'bare node:http hello world (the limit)',
    server: 'bare-http',
    workload: fixed('/'),
  },
  {
    id: 'limit-80',
    title: 'bare node:http hello world, paced at 80 % of its maximum (p99 reference)',
    server: 'bare-http',
    workload: fixed('/'),
    pace: { of: 'limit', fraction: 0.8 },
  },
  {
    id: 'limit-signed',
    title: 'bare node:http, sent live-signed HMAC-SHA1 requests (generator check)',
    server: 'bare-http',
    workload: signed({ path: '/' }),
  },
  {
    id: 'fastify',
    title: 'bare Fastify 5 hello world',
    server: 'bare-fastify',
    workload: fixed('/'),
  },
  {
    id: 'lean-hmac',
    title: 'lean hand-written verifier, HMAC-SHA1',
    server: 'lean',
    workload: signed(),
  },
  {
    id: 'lean-rsa',
    title: 'lean hand-written verifier, RSA-SHA1',
    server: 'lean',
    workload: rsa,
    pooled: true,
  },
  {
    id: 'hmac-sha1',
    title: 'Latchkey /api/me, HMAC-SHA1, header',
    server: 'latchkey',
    workload: signed(),
  },
  {
    id: 'hmac-sha1-80',
    title: 'Latchkey /api/me, HMAC-SHA1, paced at 80 % of its maximum',
    server: 'latchkey',
    workload: signed(),
    pace: { of: 'hmac-sha1', fraction: 0.8 },
  },
  {
    // The two runs above on a server whose old generation may grow further between full
    // collections (docs/decisions.md, "Node's heap and the p99"), in the same order, so that
    // its heap has the same history when the paced run starts.
    id: 'hmac-sha1-heap128',
    title: 'Latchkey /api/me, HMAC-SHA1, header, Node run with --initial-old-space-size=128',
    server: 'latchkey-heap128',
    workload: signed(),
  },
  {
    id: 'hmac-sha1-80-heap128',
    title:
      'Latchkey /api/me, HMAC-SHA1, paced at 80 % of its maximum, --initial-old-space-size=128',
    server: 'latchkey-heap128',
    workload: signed(),
    pace: { of: 'hmac-sha1-heap128', fraction: 0.8 },
  },
  {
    id: 'hmac-sha256',
    title: 'Latchkey /api/me, HMAC-SHA256, header',
    server: 'latchkey',
    workload: signed({ signatureMethod: 'HMAC-SHA256' }),
  },
  {
    id: 'hmac-query',
    title: 'Latchkey /api/me, HMAC-SHA1, query',
    server: 'latchkey',
    workload: signed({ transmission: 'query' }),
  },
  {
    id: 'hmac-body',
    title: 'Latchkey /api/me, HMAC-SHA1, form body (POST)',
    server: 'latchkey',
    workload: signed({ method: 'POST', transmission: 'body', form: [['status', 'hello world']] }),
  },
  {
    id: 'plaintext',
    title: 'Latchkey /api/me, PLAINTEXT, header',
    server: 'latchkey',
    workload: signed({ signatureMethod: 'PLAINTEXT' }),
  },
  {
    id: 'rsa-sha1',
    title: 'Latchkey /api/me, RSA-SHA1 (2048-bit), header',
    server: 'latchkey',
    workload: rsa,
    pooled: true,
  },
  {
    // A fault: made-up client keys, a new one each time, flooding in beside good traffic.
    id: 'made-up-keys',
    title:
      'Latchkey /api/me, HMAC-SHA1, one request in five from a new made-up client key (good requests counted)',
    server: 'latchkey',
    workload: (c) => ({ kind: 'flooded', spec: spec(c), floodEvery: 5 }),
  },
  {
    id: 'tokens-1k',
    title: 'Latchkey HMAC-SHA1, 1,000 tokens stored',
    server: 'latchkey-1k',
    workload: manyTokens,
  },
  {
    id: 'tokens-large',
    title: 'Latchkey HMAC-SHA1, 1,000,000 tokens stored',
    server: 'latchkey-large',
    workload: manyTokens,
  },
  {
    id: 'flows',
    title: 'Latchkey complete three-step flows',
    server: 'latchkey-flows',
    unit: 'flows',
    workload: (c) => ({
      kind: 'flow',
      flow: {
        host: c.host,
        client: c.credentials.hmacClient,
        signatureMethod: 'HMAC-SHA1',
        requestTokenPath: '/oauth/request_token',
        accessTokenPath: '/oauth/access_token',
        callback: 'http://127.0.0.1/callback',
        approvePath: '/bench/approve',
      },
    }),
  },
  {
    id: 'hmac-logged',
    title: 'Latchkey /api/me, HMAC-SHA1, logging each request (the serve default)',
    server: 'latchkey-logged',
    workload: signed(),
  },
  {
    id: 'upstream',
    title: 'bare upstream alone (node:http)',
    server: 'gateway',
    target: 'upstream',
    workload: fixed('/'),
  },
  {
    id: 'gateway',
    title: 'Latchkey gateway in front of that upstream, HMAC-SHA1',
    server: 'gateway',
    workload: signed({ path: '/' }),
  },
  {
    // The reference for the attack below: the same GETs at the same pace, no attack.
    id: 'gateway-50',
    title: 'Latchkey gateway, HMAC-SHA1 GETs at 50 % of its maximum',
    server: 'gateway',
    workload: signed({ path: '/' }),
    pace: { of: 'gateway', fraction: 0.5 },
  },
  {
    // The slow-upload attack (docs/security.md, the gateway's rows): signed GETs
    // at half the gateway's maximum of the round, measured while 140 uploads trickle.
    id: 'gateway-slow-upload',
    title:
      'Latchkey gateway, HMAC-SHA1 GETs at 50 % of its maximum while 140 uploads trickle a byte a second',
    server: 'gateway',
    workload: signed({ path: '/' }),
    pace: { of: 'gateway', fraction: 0.5 },
    fault: async (c) => {
      const uploads = await startSlowUploads({ host: c.host, credentials: c.credentials });
      const held = uploads.open();
      return {
        check: () => {
          const open = uploads.open();
          return open === held ? undefined : `${held - open} of ${held} uploads ended early`;
        },
        stop: () => uploads.stop(),
      };
    },
  },
  {
    // Peers, driven by the same generator with the same signed requests as hmac-sha1
    // (credentials in memory, as the lean verifier's): docs/benchmarks.md, "Peers".
    id: 'peer-passport',
    title: 'peer: passport-http-oauth TokenStrategy on Express 5, HMAC-SHA1, header',
    server: 'passport',
    workload: signed(),
  },
  {
    id: 'peer-oauthlib',
    title:
      'peer: oauthlib ResourceEndpoint under gunicorn (1 worker, 4 threads), HMAC-SHA1, header',
    server: 'oauthlib',
    workload: signed(),
  },
  {
    // The reference for the gateway, as the lean verifier is for HMAC: proxying alone.
    id: 'bare-proxy',
    title: 'bare proxy (node:http + undici, no verification) in front of the same upstream',
    server: 'bare-proxy',
    workload: fixed('/'),
  },
  {
    // The third way (docs/edge.md): the team's nginx proxies, asking Latchkey first.
    id: 'forward-auth',
    title: 'nginx auth_request to Latchkey forward-auth, in front of the same upstream, HMAC-SHA1',
    server: 'forward-auth',
    workload: signed({ path: '/' }),
  },
  {
    // What the proxying library costs alone, configured as the gateway configures it.
    id: 'fastify-proxy',
    title: 'Fastify + @fastify/http-proxy (no verification) in front of the same upstream',
    server: 'fastify-proxy',
    workload: fixed('/'),
  },
];
