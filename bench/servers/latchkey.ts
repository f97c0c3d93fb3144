/**
 * Latchkey under test, as `latchkey serve` runs it: the SQLite store, the provider with its
 * upkeep, the app with its pages, listening on loopback. Two additions for the harness:
 * `POST /bench/approve` approves a temporary credential for the seeded owner through the
 * consent page's own provider call (for the flows scenario, without scraping HTML), and
 * `--sample-ms N` prints the process's memory and the nonce store's size every N ms.
 * `--upstream URL` makes it a gateway in front of that API (`--gateway-rules JSON`: its
 * rules, docs/gateway.md); `--forward-auth` answers an edge's forward-auth requests
 * (docs/edge.md); `--log-level info` logs every
 * request as `latchkey serve` does by default (to /dev/null: the cost is the logging's, not a
 * pipe's).
 *
 * `--profile-file FILE` records a CPU profile from SIGUSR2 (sent once the load is warm) to
 * SIGTERM, so start-up does not blur it.
 *
 * Usage: node bench/servers/latchkey.ts --database FILE [--port N] [--sample-ms N]
 *   [--upstream URL] [--gateway-rules JSON] [--forward-auth] [--log-level LEVEL]
 *   [--profile-file FILE] [--window SECONDS]
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { logDestination } from '../../src/http/access-log.ts';
import { buildApp } from '../../src/http/app.ts';
import { parseGatewayRules } from '../../src/http/gateway/rules.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { announceReady } from './ready.ts';

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    port: { type: 'string', default: '0' },
    'sample-ms': { type: 'string' },
    upstream: { type: 'string' },
    'gateway-rules': { type: 'string' },
    'forward-auth': { type: 'boolean' },
    'log-level': { type: 'string' },
    'profile-file': { type: 'string' },
    window: { type: 'string' },
  },
});
const path = values.database;
if (path === undefined) throw new Error('--database FILE is required');

const store = createSqliteStore({ path });
// `--window S`: the timestamp window (and so each nonce's lifetime), for the soak.
const window = values.window === undefined ? undefined : Number(values.window);
const provider = createProvider({
  store,
  policy: window === undefined ? undefined : { timestampWindowSeconds: window },
});
const withPages = existsSync(new URL('../../src/web/index.ts', import.meta.url));
const build = withPages ? (await import('../../src/server.ts')).buildServer : buildApp;
const level = values['log-level'];
const app = await build({
  provider,
  insecureHttp: true,
  // The buffered destination `latchkey serve` writes to stdout with, here to /dev/null so the
  // cost measured is the logging's and not a pipe reader's.
  logger: level === undefined ? false : { level, stream: logDestination('/dev/null') },
  gateway:
    values.upstream === undefined
      ? undefined
      : {
          upstream: values.upstream,
          rules: parseGatewayRules(values['gateway-rules'] ?? '[]'),
        },
  forwardAuth: values['forward-auth'] === true ? {} : undefined,
});

const owner = await store.owners.findByUsername('bench-owner');
app.post('/bench/approve', async (request, reply) => {
  const token = (request.query as Record<string, string | undefined>)['oauth_token'] ?? '';
  const approval = await provider.authorization.approve(token, owner!.id);
  return reply
    .type('application/x-www-form-urlencoded')
    .send(`oauth_verifier=${approval.verifier}`);
});

await app.listen({ port: Number(values.port), host: '127.0.0.1' });
app.server.keepAliveTimeout = 60_000;
announceReady(app.server.address(), { pages: withPages });

const sampleMs = Number(values['sample-ms'] ?? 0);
if (sampleMs > 0) {
  const fileBytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  const started = Date.now();
  const sample = async () => {
    const memory = process.memoryUsage();
    const values = {
      t: (Date.now() - started) / 1000,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      nonces: await store.nonces.size(),
      diskBytes: fileBytes(path) + fileBytes(`${path}-wal`) + fileBytes(`${path}-shm`),
      walBytes: fileBytes(`${path}-wal`),
    };
    process.stdout.write(`${JSON.stringify({ sample: values })}\n`);
  };
  await sample(); // the baseline, before any load
  setInterval(sample, sampleMs).unref();
}

let stopProfile = async () => {};
const profileFile = values['profile-file'];
if (profileFile !== undefined) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  process.on('SIGUSR2', () => void session.post('Profiler.start'));
  stopProfile = async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileFile, JSON.stringify(profile));
  };
}

process.on('SIGTERM', () => {
  stopProfile()
    .then(() => app.close())
    .then(() => store.close())
    .finally(() => process.exit(0));
});
