// A fleet as docs/deployment.md deploys it: `latchkey serve --trust-proxy` instances (real
// processes, the real CLI) on PostgreSQL + Redis, behind Debian's nginx running the docs' own
// nginx block (only its addresses and certificate paths replaced), TLS from a throwaway CA
// made with openssl. Clients reach it as https://latchkey.test through an undici Agent that
// trusts that CA and dials nginx's loopback port.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { baseEnv, bin } from '../cli/run-cli.ts';

export const NGINX = '/usr/sbin/nginx';
/** The name clients use; publicUrl, the certificate's name, what every request is signed for. */
export const PUBLIC_HOST = 'latchkey.test';
export const PUBLIC_URL = `https://${PUBLIC_HOST}`;

const run = promisify(execFile);

/** Why the fleet cannot run here (for requirement()), or undefined. */
export async function fleetProblem(): Promise<string | undefined> {
  if (!existsSync(NGINX)) return `${NGINX} missing (bash .ci/install-edges.sh installs it)`;
  try {
    await run('openssl', ['version']);
  } catch {
    return 'openssl missing (bash .ci/install-edges.sh installs it)';
  }
  return undefined;
}

/** A port free now, for a process that must keep its port across restarts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Tls {
  readonly ca: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** A CA and a certificate for PUBLIC_HOST signed by it, in `dir`. */
export async function throwawayTls(dir: string): Promise<Tls> {
  const file = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await run('openssl', [
    'req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1',
    '-subj', '/CN=Latchkey fleet test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign',
  ]); // prettier-ignore
  await run('openssl', [
    'req', ...ec, '-keyout', file('key.pem'), '-out', file('server.csr'),
    '-subj', `/CN=${PUBLIC_HOST}`,
  ]); // prettier-ignore
  writeFileSync(file('server.ext'), `subjectAltName=DNS:${PUBLIC_HOST}\n`);
  await run('openssl', [
    'x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'),
    '-CAcreateserial', '-days', '1', '-out', file('fullchain.pem'), '-extfile', file('server.ext'),
  ]); // prettier-ignore
  return {
    ca: readFileSync(file('ca.pem'), 'utf8'),
    certFile: file('fullchain.pem'),
    keyFile: file('key.pem'),
  };
}

/** The nginx block of docs/deployment.md, as written there. */
export function docsNginxBlock(): string {
  const docs = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8');
  const blocks = [...docs.matchAll(/```nginx\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const found = blocks.filter((block) => block.includes('upstream latchkey'));
  if (found.length !== 1) throw new Error(`docs/deployment.md: ${found.length} upstream blocks`);
  return found[0]!;
}

/** Replaces `pattern` in `text`, which must match exactly `count` times. */
function replaceExactly(text: string, pattern: RegExp, count: number, by: (m: string) => string) {
  const matches = text.match(pattern) ?? [];
  if (matches.length !== count) {
    throw new Error(`docs nginx block: ${matches.length} matches of ${pattern}, not ${count}`);
  }
  return text.replace(pattern, by);
}

/**
 * The docs' block for this machine: the instances' addresses in place of the example's (with
 * the example's parameters), nginx's loopback port for 443, the test's certificate files.
 * Every other line is the docs' own.
 */
export function fleetNginxBlock(
  docs: string,
  upstreams: readonly number[],
  port: number,
  tls: Tls,
) {
  const servers = docs.match(/^ *server 10\.0\.0\.\d+:8080( [^;]*)?;\n/gm) ?? [];
  if (servers.length === 0) throw new Error('docs nginx block: no upstream server lines');
  const parameters = /^ *server \S+( [^;]*)?;/.exec(servers[0]!)![1] ?? '';
  let block = docs.replace(servers.slice(1).join(''), '');
  block = replaceExactly(block, /^ *server 10\.0\.0\.\d+:8080[^;]*;$/gm, 1, () =>
    upstreams.map((upstream) => `    server 127.0.0.1:${upstream}${parameters};`).join('\n'),
  );
  block = replaceExactly(block, /listen 443 ssl;/g, 1, () => `listen 127.0.0.1:${port} ssl;`);
  block = replaceExactly(block, /\/etc\/nginx\/tls\/fullchain\.pem/g, 1, () => tls.certFile);
  block = replaceExactly(block, /\/etc\/nginx\/tls\/key\.pem/g, 1, () => tls.keyFile);
  return block;
}

export interface Nginx {
  readonly port: number;
  /** fetch through nginx as a client of https://latchkey.test. */
  readonly fetch: typeof fetch;
  stop(): Promise<void>;
}

/** Debian's nginx in the foreground, its files in `dir`, serving `block`. */
export async function startNginx(dir: string, block: string, port: number, tls: Tls) {
  const config = join(dir, 'nginx.conf');
  writeFileSync(
    config,
    [
      // Runs as whoever runs the test (root on CI): no user switch, files in `dir` only.
      'worker_processes 1;',
      'events { worker_connections 1024; }',
      'http {',
      '    access_log off;',
      `    client_body_temp_path ${join(dir, 'body')};`,
      `    proxy_temp_path ${join(dir, 'proxy')};`,
      `    fastcgi_temp_path ${join(dir, 'fastcgi')};`,
      `    uwsgi_temp_path ${join(dir, 'uwsgi')};`,
      `    scgi_temp_path ${join(dir, 'scgi')};`,
      block,
      '}',
      '',
    ].join('\n'),
  );
  const errorLog = join(dir, 'error.log');
  const user = process.getuid?.() === 0 ? 'user root; ' : '';
  const child = spawn(NGINX, [
    '-e', errorLog, '-c', config, '-p', dir,
    '-g', `${user}daemon off; master_process on; pid ${join(dir, 'nginx.pid')}; error_log ${errorLog} warn;`,
  ]); // prettier-ignore
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  let ended = false;
  void exited.then(() => (ended = true));
  // Listening once a TCP connection to its port is accepted.
  for (;;) {
    if (ended) throw new Error(`nginx ended: ${output}${readLog(errorLog)}`);
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (accepted) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const connector = buildConnector({ ca: tls.ca });
  const agent = new Agent({
    connections: 16,
    connect: (options, callback) =>
      connector(
        {
          ...options,
          hostname: '127.0.0.1',
          host: '127.0.0.1',
          port: String(port),
          servername: PUBLIC_HOST,
        },
        callback,
      ),
  });
  const viaNginx = ((input: string | URL, init: RequestInit = {}) =>
    undiciFetch(String(input), {
      ...(init as unknown as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent,
    })) as unknown as typeof fetch;
  return {
    port,
    fetch: viaNginx,
    errorLog: () => readLog(errorLog),
    async stop() {
      await agent.close().catch(() => undefined);
      if (!ended) child.kill('SIGQUIT');
      await exited;
    },
  } satisfies Nginx & { errorLog: () => string };
}

function readLog(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

export interface Instance {
  readonly port: number;
  readonly child: ChildProcessWithoutNullStreams;
  /** The exit event: [code, signal]. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  output(): string;
}

/** `latchkey serve --trust-proxy` on `port`, as in docs/deployment.md; resolves once it listens. */
export async function startInstance(env: Record<string, string>, port: number) {
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--trust-proxy', '--host', '127.0.0.1', '--port', String(port)],
    { env: { ...baseEnv(), ...env } },
  );
  let output = '';
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (code, signal) => resolve([code, signal])),
  );
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (/^Latchkey listening on /m.test(output)) resolve();
    });
    void exited.then(() => reject(new Error(`latchkey serve ended: ${output}`)));
  });
  return { port, child, exited, output: () => output } satisfies Instance;
}

/**
 * A fetch straight to one instance, past nginx, with the forwarded headers nginx sets: for
 * requests signed for https://latchkey.test that must reach that instance and no other.
 */
export function directFetch(port: number): typeof fetch {
  return ((input: string | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const headers = new Headers(init.headers);
    headers.set('x-forwarded-proto', url.protocol.slice(0, -1));
    headers.set('x-forwarded-host', url.host);
    return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { ...init, headers });
  }) as typeof fetch;
}
