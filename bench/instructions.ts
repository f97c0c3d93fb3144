// Instructions per request, counted by valgrind's callgrind: a figure that the other work on a
// shared machine does not take away, so it tells two versions of the hot path apart where
// req/s cannot, as long as they differ by more than its own noise: two runs of one tree have
// read 253,320 and 272,798 for /api/me, because V8 tiers code up on background threads and
// by time, and work done once a second lands on far fewer requests under valgrind
// (docs/benchmarks.md, "Instructions per request"). It counts user-space
// instructions only: the socket and file system calls (about a fifth of a request) are not in
// it, and cache misses cost nothing here, so a change is confirmed in the req/s rows before it
// is believed.
//
// Each server runs under callgrind twice on copies of one seeded database, answering N and
// then 3N signed HMAC-SHA1 GET /api/me requests with fresh nonces over C keep-alive
// connections. The difference over the 2N extra requests is the figure: start-up and the JIT's
// warm-up, paid within the first N by both, are left out. The servers: `bare` (bare node:http, the
// same requests answered with hello world: the floor), `latchkey` (the verified /api/me) and
// `logged` (the same with the access log on, as `latchkey serve` runs by default).
//
// The proxies answer GET / (signed as above) by forwarding it to a bare node:http upstream that
// runs outside valgrind, one for the whole run, so only the proxy's own instructions are
// counted: `gateway` (Latchkey's gateway, verifying), `proxy` (bench/servers/bare-proxy.ts, no
// verification: the floor for proxying) and `fastify-proxy` (bench/servers/fastify-proxy.ts).
// These figures are not as steady as /api/me's: how long the upstream takes under a loaded
// machine changes the proxy's timer and connection work, and three runs of one gateway tree
// read 438,954, 496,705 and 537,001. Compare two trees in runs made side by side, and repeat.
//
//   node bench/instructions.ts [--requests 10000] [--connections 10] [--servers bare,latchkey,logged]
//                              [--keep <folder>]
//   node bench/instructions.ts --requests 5000 --servers gateway,proxy
//
// --keep copies the callgrind profiles to the folder, to read where the instructions go:
// `callgrind_annotate <folder>/latchkey-loaded.callgrind` (V8's builtins and the native code are
// named; JIT-compiled JavaScript is not).
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ResponseParser } from './load/response-parser.ts';
import { nonceSource, RequestSigner } from './load/signed-request.ts';
import { ROOT, runScript, startServer } from './processes.ts';
import type { SeededCredentials } from './seed/seed-latchkey.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '10' },
    servers: { type: 'string', default: 'bare,latchkey,logged' },
    keep: { type: 'string' },
  },
});
const requests = Number(values.requests);
const connections = Number(values.connections);

const SERVERS: Record<string, (database: string, upstream: string) => string[]> = {
  bare: () => ['bench/servers/bare-http.ts'],
  latchkey: (database) => ['bench/servers/latchkey.ts', '--database', database],
  logged: (database) => [
    'bench/servers/latchkey.ts',
    '--database',
    database,
    '--log-level',
    'info',
  ],
  gateway: (database, upstream) => [
    'bench/servers/latchkey.ts',
    '--database',
    database,
    '--upstream',
    upstream,
  ],
  proxy: (_database, upstream) => ['bench/servers/bare-proxy.ts', '--upstream', upstream],
  'fastify-proxy': (_database, upstream) => [
    'bench/servers/fastify-proxy.ts',
    '--upstream',
    upstream,
  ],
};
/** The servers that forward to the upstream: their requests go to `/`, not `/api/me`. */
const PROXIES = new Set(['gateway', 'proxy', 'fastify-proxy']);
const servers = values.servers.split(',').map((name) => name.trim());
for (const name of servers) {
  if (SERVERS[name] === undefined) throw new Error(`unknown server ${name}`);
}

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (apt-get install valgrind).');
  process.exit(2);
}

const directory = mkdtempSync(join(tmpdir(), 'latchkey-instructions-'));
// Outside valgrind, so its instructions are not counted, and shared by every proxy.
const upstream = servers.some((name) => PROXIES.has(name))
  ? await startServer(['bench/servers/bare-http.ts'])
  : undefined;
const upstreamUrl = upstream === undefined ? '' : `http://127.0.0.1:${upstream.port}`;
try {
  const seeded = join(directory, 'seeded.db');
  const credentials = await runScript<SeededCredentials>([
    'bench/seed/seed-latchkey.ts',
    '--database',
    seeded,
    '--sample',
    '1',
  ]);
  const results: Record<string, number> = {};
  for (const server of servers) {
    const [warm, loaded] = await Promise.all([
      countInstructions(server, 'warm', requests),
      countInstructions(server, 'loaded', 3 * requests),
    ]);
    const perRequest = Math.round((loaded - warm) / (2 * requests));
    results[server] = perRequest;
    console.log(
      `${server}: with ${format(requests)} requests ${format(warm)}, with ${format(3 * requests)} ${format(loaded)}: ` +
        `${format(perRequest)} instructions per request`,
    );
  }
  if (results['bare'] !== undefined) {
    for (const [server, perRequest] of Object.entries(results)) {
      if (server !== 'bare') {
        console.log(`${server}: ${(perRequest / results['bare']).toFixed(2)} × bare node:http`);
      }
    }
  }
  if (results['proxy'] !== undefined) {
    for (const server of ['gateway', 'fastify-proxy']) {
      const perRequest = results[server];
      if (perRequest !== undefined) {
        console.log(`${server}: ${(perRequest / results['proxy']).toFixed(2)} × the bare proxy`);
      }
    }
  }
  console.log(JSON.stringify({ requests, connections, perRequest: results }));

  /** Total instructions of a server that starts, answers `count` requests and stops. */
  async function countInstructions(server: string, name: string, count: number): Promise<number> {
    const database = join(directory, `${server}-${name}.db`);
    copyFileSync(seeded, database);
    const log = join(directory, `${server}-${name}.log`);
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${join(directory, `${server}-${name}.callgrind`)}`,
        `--log-file=${log}`,
        process.execPath,
        '--disable-warning=ExperimentalWarning',
        ...SERVERS[server]!(database, upstreamUrl),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const ready = /\{"ready":true,"port":(\d+)/.exec(out);
        if (ready !== null) resolve(Number(ready[1]));
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
    });
    if (count > 0) await drive(port, count, credentials, PROXIES.has(server) ? '/' : '/api/me');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const collected = /Collected : (\d+)/.exec(readFileSync(log, 'utf8'));
    if (collected === null) throw new Error(`no instruction count in ${log}`);
    if (values.keep !== undefined) {
      mkdirSync(values.keep, { recursive: true });
      const profile = `${server}-${name}.callgrind`;
      copyFileSync(join(directory, profile), join(values.keep, profile));
    }
    return Number(collected[1]);
  }
} finally {
  await upstream?.stop();
  rmSync(directory, { recursive: true, force: true });
}

/**
 * Sends `count` signed GETs of `path` over keep-alive connections, one in flight on each,
 * signed and framed as the load generator does (bench/load).
 */
async function drive(
  port: number,
  count: number,
  credentials: SeededCredentials,
  path: string,
): Promise<void> {
  const signer = new RequestSigner({
    method: 'GET',
    host: `127.0.0.1:${port}`,
    path,
    transmission: 'header',
    signatureMethod: 'HMAC-SHA1',
    client: credentials.hmacClient,
    token: credentials.token,
  });
  const nonce = nonceSource();
  let sent = 0;
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    for (let c = 0; c < Math.min(connections, count); c++) {
      const socket = connect(port, '127.0.0.1');
      const parser = new ResponseParser();
      const next = () => {
        if (sent === count) return void socket.end();
        sent++;
        socket.write(signer.build(nonce(), Math.floor(Date.now() / 1000)));
      };
      socket.on('connect', next);
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        for (const response of parser.push(chunk)) {
          if (response.status !== 200) {
            reject(new Error(`answered ${response.status}: ${response.body.toString()}`));
            return;
          }
          if (++answered === count) resolve();
          next();
        }
      });
    }
  });
}

function format(n: number): string {
  return n.toLocaleString('en-US');
}
