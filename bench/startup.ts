/**
 * Start-up to ready, measured on the real command: `latchkey serve` with the Node flags
 * `npm start` gives it, on a seeded database, pinned to the server core, from spawning the
 * process to the moment it accepts a TCP connection and answers the advertisement. It is
 * then stopped.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { ROOT, wrapCommand } from './processes.ts';
import { SERVE_NODE_FLAGS } from './serve-flags.ts';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/.well-known/oauth1-provider', timeout: 200 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Milliseconds from spawn to the first 200 from the advertisement, or a thrown error. */
export async function measureCliStartup(
  database: string,
  pin: string | undefined,
): Promise<number> {
  const port = await freePort();
  // A copy in a folder of its own: `latchkey serve` makes a key file beside the database and
  // seals the secrets it finds, which the bench servers (no key) could then not read.
  const folder = mkdtempSync(join(tmpdir(), 'latchkey-startup-'));
  const copy = join(folder, 'latchkey.db');
  copyFileSync(database, copy);
  const args = [
    `${ROOT}bin/latchkey.js`,
    'serve',
    '--database',
    copy,
    '--port',
    String(port),
    '--log-level',
    'silent',
  ];
  const [file, argv] = wrapCommand([process.execPath, ...SERVE_NODE_FLAGS, ...args], pin);
  const started = performance.now();
  const child = spawn(file, argv, { cwd: ROOT, stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error('latchkey serve exited before it was ready');
      if (performance.now() - started > 30_000) throw new Error('latchkey serve not ready in 30 s');
      if (await answers(port)) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGKILL');
    if (!exited) await new Promise((resolve) => child.once('exit', resolve));
    rmSync(folder, { recursive: true, force: true });
  }
}
