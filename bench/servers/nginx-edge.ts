/**
 * The forward-auth scenario's edge: Debian's nginx with docs/edge.md's config, `auth_request`
 * to Latchkey, in front of the bare upstream. This process finds a free port, runs nginx in
 * the foreground on it (inheriting this process's core), announces it ready once it accepts
 * connections, and stops it on SIGTERM.
 *
 * Usage: node bench/servers/nginx-edge.ts --latchkey PORT --upstream PORT
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NGINX_BINARY, writeNginxConfig } from './nginx-config.ts';
import { announceReady } from './ready.ts';

const { values } = parseArgs({
  options: { latchkey: { type: 'string' }, upstream: { type: 'string' } },
});
if (values.latchkey === undefined || values.upstream === undefined) {
  throw new Error('--latchkey PORT and --upstream PORT are required');
}

const probe = net.createServer().listen(0, '127.0.0.1');
await once(probe, 'listening');
const port = (probe.address() as AddressInfo).port;
probe.close();
await once(probe, 'close');

const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-nginx-'));
const args = writeNginxConfig(dir, {
  port,
  latchkeyPort: Number(values.latchkey),
  upstreamPort: Number(values.upstream),
});
const nginx = spawn(NGINX_BINARY, args, { stdio: ['ignore', 'ignore', 'inherit'] });
nginx.once('exit', (code) => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(code ?? 1);
});
process.once('SIGTERM', () => nginx.kill('SIGTERM'));

for (;;) {
  const connected = await new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
  if (connected) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
// nginx's master and worker, so the run counts their CPU time as the server's.
const workers = readFileSync(`/proc/${nginx.pid}/task/${nginx.pid}/children`, 'utf8')
  .trim()
  .split(/\s+/)
  .filter((pid) => pid !== '')
  .map(Number);
announceReady({ address: '127.0.0.1', family: 'IPv4', port }, { pids: [nginx.pid, ...workers] });
