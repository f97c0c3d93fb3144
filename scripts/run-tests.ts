// Runs the test suites with node:test. Arguments narrow the run to files or folders
// (default: every test/**/*.test.ts). Suites whose service or tool is missing skip with a
// reason (test/support/requirements.ts); under CI=true they fail instead.
//
// It says at the start how long the same run took last time on this machine (kept in
// node_modules/.cache/latchkey/test-runs.json), and on Ctrl-C it stops the whole run at once
// (the test processes and the servers they started, a process group of their own), with one
// line, rather than node:test reporting every test still running as "Promise resolution is
// still pending".
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, globSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const args = process.argv.slice(2);
const targets = args.length === 0 ? ['test'] : args;
const files = targets.flatMap((target) =>
  existsSync(target) && statSync(target).isDirectory()
    ? globSync(`${target.replace(/\/$/, '')}/**/*.test.ts`)
    : [target],
);
files.sort();

const history = 'node_modules/.cache/latchkey/test-runs.json';
const runKey = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16);
function readHistory(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(history, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
const minutes = (ms: number) =>
  ms < 90_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
const last = readHistory()[runKey];
process.stdout.write(
  `Running ${files.length} test file${files.length === 1 ? '' : 's'}, two at a time: ` +
    (last === undefined
      ? 'no earlier complete run of these on this machine to estimate from.\n'
      : `the last complete run of these here took ${minutes(last)}.\n`),
);

const started = Date.now();
const child = spawn(
  process.execPath,
  [
    '--disable-warning=ExperimentalWarning',
    '--conditions=source',
    '--test',
    '--test-concurrency=2',
    '--test-timeout=180000',
    '--test-reporter=spec',
    ...files,
  ],
  // A process group of its own: Ctrl-C reaches this runner alone, which ends the group.
  { stdio: 'inherit', env: { ...process.env, LATCHKEY_TEST: '1' }, detached: true },
);

let interrupted = false;
const stopAll = (signal: NodeJS.Signals) => {
  if (interrupted) return;
  interrupted = true;
  process.stdout.write(
    `\n${signal}: test run stopped; the tests still running were not finished.\n`,
  );
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already ended
  }
};
process.on('SIGINT', stopAll).on('SIGTERM', stopAll);

child.on('close', (code) => {
  if (interrupted) process.exit(130);
  // A run that ended by itself, passing or not, is the next run's estimate.
  if (code !== null) {
    mkdirSync(dirname(history), { recursive: true });
    writeFileSync(history, JSON.stringify({ ...readHistory(), [runKey]: Date.now() - started }));
  }
  process.exit(code ?? 1);
});
