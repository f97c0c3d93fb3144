// Real edges on loopback for the tests: nginx and Caddy started with the config blocks of
// docs/edge.md (only the ports filled in, so the page and the tests cannot drift; nginx's
// config is written by bench/servers/nginx-config.ts, which the benchmark uses too), and the
// fenced blocks of that page for the examples.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { edgeDocBlock, NGINX_BINARY, writeNginxConfig } from '../../bench/servers/nginx-config.ts';

/** The first fenced block of `language` in docs/edge.md, as written. */
export const docBlock = edgeDocBlock;

/** A port free on loopback now (nginx and Caddy cannot report one they chose). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** Waits until something accepts connections on the port, or the process ends. */
async function accepting(
  port: number,
  child: ChildProcess,
  log: () => string,
  attempts: number,
): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (child.exitCode !== null) throw new Error(`the edge exited: ${log()}`);
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the edge did not listen on ${port}: ${log()}`);
}

export interface RunningEdge {
  readonly port: number;
  stop(): Promise<void>;
}

/** Why `binary` cannot run here, or undefined. */
export function binaryProblem(binary: string, versionFlag: string): string | undefined {
  if (!existsSync(binary)) return `${binary} not found (bash .ci/install-edges.sh installs it)`;
  const run = spawnSync(binary, [versionFlag], { stdio: 'ignore', timeout: 20_000 });
  return run.status === 0 ? undefined : `${binary} ${versionFlag} failed`;
}

export const NGINX = NGINX_BINARY;
export const CADDY = '/usr/bin/caddy';

/** Starts `command` in `dir` and waits (up to `waitMs`) until it listens on `port`. */
export async function launch(
  command: string,
  args: string[],
  port: number,
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  waitMs = 10_000,
): Promise<RunningEdge> {
  let output = '';
  const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await accepting(port, child, () => output, Math.ceil(waitMs / 50));
  return {
    port,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** nginx with docs/edge.md's `nginx` block: Latchkey and the API on the given ports. */
export async function startNginx(latchkeyPort: number, upstreamPort: number): Promise<RunningEdge> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-nginx-'));
  const args = writeNginxConfig(dir, { port, latchkeyPort, upstreamPort });
  return launch(NGINX, args, port, dir);
}

/** Caddy with docs/edge.md's `caddyfile` block, over plain HTTP on loopback. */
export async function startCaddy(latchkeyPort: number, upstreamPort: number): Promise<RunningEdge> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-caddy-'));
  const site = docBlock('caddyfile')
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${latchkeyPort}`)
    .replaceAll('127.0.0.1:3000', `127.0.0.1:${upstreamPort}`)
    .replace('api.example.com {', `http://127.0.0.1:${port} {`);
  // No admin endpoint and nothing written outside the folder.
  const config = `{\n\tadmin off\n}\n\n${site}\n`;
  writeFileSync(join(dir, 'Caddyfile'), config);
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  return launch(
    CADDY,
    ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'],
    port,
    dir,
    env,
  );
}
