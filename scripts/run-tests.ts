// Runs the test suites with node:test. Arguments narrow the run to files or folders
// (default: every test/**/*.test.ts). Suites whose service or tool is missing skip with a
// reason (test/support/requirements.ts); under CI=true they fail instead.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { globSync } from 'node:fs';

const args = process.argv.slice(2);
const targets = args.length === 0 ? ['test'] : args;
const files = targets.flatMap((target) =>
  existsSync(target) && statSync(target).isDirectory()
    ? globSync(`${target.replace(/\/$/, '')}/**/*.test.ts`)
    : [target],
);
files.sort();

const result = spawnSync(
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
  { stdio: 'inherit', env: { ...process.env, LATCHKEY_TEST: '1' } },
);
process.exit(result.status ?? 1);
