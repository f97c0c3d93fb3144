/**
 * A peer: oauthlib under gunicorn (Debian's packages), bench/servers/oauthlib_peer.py. This
 * launcher starts gunicorn on a free port (pinned as this process is: the affinity is
 * inherited), announces it ready once it accepts connections, with the pids whose CPU is the
 * server's, and stops it with itself. One worker with threads (gthread keeps connections
 * alive, as the generator expects): the one core the server is pinned to, as for Latchkey.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { announceReady, portArgument } from './ready.ts';

export const GUNICORN = '/usr/bin/gunicorn';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const port = portArgument() || (await freePort());
const gunicorn = spawn(
  GUNICORN,
  [
    '--chdir', fileURLToPath(new URL('.', import.meta.url)),
    '--bind', `127.0.0.1:${port}`,
    '--workers', '1', '--worker-class', 'gthread', '--threads', '4',
    '--keep-alive', '60', '--preload', '--log-level', 'warning',
    'oauthlib_peer:app',
  ], // prettier-ignore
  { env: { ...process.env, BENCH_WATCH_PARENT: '1' }, stdio: ['ignore', 'ignore', 'inherit'] },
);
gunicorn.once('exit', (code, signal) => {
  process.stderr.write(`gunicorn exited (${code ?? signal})\n`);
  process.exit(1);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    gunicorn.removeAllListeners('exit');
    gunicorn.once('exit', () => process.exit(0));
    gunicorn.kill('SIGQUIT');
  });
}

// Ready once a worker answers (the master accepts connections before its worker runs).
for (;;) {
  const answered = await fetch(`http://127.0.0.1:${port}/`).then(
    () => true,
    () => false,
  );
  if (answered) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const master = gunicorn.pid!;
const workers = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8')
  .trim()
  .split(/\s+/)
  .filter((pid) => pid !== '')
  .map(Number);
announceReady({ address: '127.0.0.1', family: 'IPv4', port }, { pids: [master, ...workers] });
