/**
 * Runs the real `latchkey` command as a child process (bin/latchkey.js under this Node), in a
 * workspace of its own: a temporary folder with the database and the profiles file, and an
 * environment without the caller's LATCHKEY_* variables.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const bin = fileURLToPath(new URL('../../bin/latchkey.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Written to stdin, which is then closed. */
  readonly input?: string;
  /** Added to (or, with undefined, removed from) the workspace environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface Workspace {
  readonly dir: string;
  readonly database: string;
  readonly profiles: string;
  readonly env: Record<string, string>;
  run(args: readonly string[], options?: RunOptions): Promise<CliResult>;
  /** Runs and fails the test unless the exit code is 0; returns stdout. */
  ok(args: readonly string[], options?: RunOptions): Promise<string>;
  remove(): void;
}

export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('LATCHKEY_')) env[name] = value;
  }
  return env;
}

export function runCli(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

export function workspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-cli-'));
  const database = join(dir, 'latchkey.db');
  const profiles = join(dir, 'profiles.json');
  const env = {
    ...baseEnv(),
    LATCHKEY_DATABASE: database,
    LATCHKEY_PROFILES: profiles,
    LATCHKEY_LOG_LEVEL: 'silent',
  };
  const run = (args: readonly string[], options: RunOptions = {}) =>
    runCli(args, { ...env, ...options.env }, options.input);
  return {
    dir,
    database,
    profiles,
    env,
    run,
    async ok(args, options) {
      const result = await run(args, options);
      if (result.code !== 0) {
        throw new Error(
          `latchkey ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`,
        );
      }
      return result.stdout;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
