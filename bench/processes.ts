/**
 * Child processes of a benchmark run: servers pinned to the server core, the generator
 * (which pins itself once its workload is ready). Every child is tracked and stopped at
 * exit, so an interrupted run leaves nothing behind.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { GeneratorConfig } from './load/generator.ts';
import type { LoadResult } from './load/load-run.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE_FLAGS = ['--disable-warning=ExperimentalWarning'];
const children = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

export interface ServerProcess {
  readonly port: number;
  /** The ready line's other fields (what a server reports about itself). */
  readonly info: Record<string, unknown>;
  /** Milliseconds from spawn to the ready line. */
  readonly startupMs: number;
  readonly pid: number;
  /** JSON lines the server prints after it is ready (samples). */
  onMessage(listener: (message: Record<string, unknown>) => void): void;
  stop(): Promise<void>;
}

/** Set once by run.ts from --nice: every child then yields to other work on the machine. */
let niceness: number | undefined;
export function setNiceness(value: number | undefined): void {
  niceness = value;
}

function command(
  args: string[],
  pin: string | undefined,
  nodeFlags: readonly string[] = [],
): [string, string[]] {
  return wrapCommand([process.execPath, ...NODE_FLAGS, ...nodeFlags, ...args], pin);
}

/** A command line pinned to `pin` (taskset) and at the run's niceness, as [file, args]. */
export function wrapCommand(
  command: readonly string[],
  pin: string | undefined,
): [string, string[]] {
  let argv = [...command];
  if (pin !== undefined) argv = ['taskset', '-c', pin, ...argv];
  if (niceness !== undefined) argv = ['nice', '-n', String(niceness), ...argv];
  return [argv[0]!, argv.slice(1)];
}

export interface StartOptions {
  readonly pin?: string | undefined;
  /** Node flags before the script (e.g. those `npm start` gives `latchkey serve`). */
  readonly nodeFlags?: readonly string[] | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs?: number | undefined;
}

/** Starts `node <args>` and resolves when it prints `{"ready":true,"port":N,…}`. */
export function startServer(args: string[], options: StartOptions = {}): Promise<ServerProcess> {
  const [file, argv] = command(args, options.pin, options.nodeFlags);
  const started = performance.now();
  const child = spawn(file, argv, {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const listeners: ((message: Record<string, unknown>) => void)[] = [];
  const pending: Record<string, unknown>[] = []; // messages before anyone listened
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  exited.then(() => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args[0]} did not become ready in time. ${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited (${code}) before it was ready:\n${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // a server's own log line
      }
      if (message['ready'] !== true) {
        if (listeners.length === 0) pending.push(message);
        for (const listener of listeners) listener(message);
        return;
      }
      clearTimeout(timer);
      const { port, ...info } = message;
      resolve({
        port: Number(port),
        info,
        startupMs: performance.now() - started,
        pid: child.pid!,
        onMessage: (listener) => {
          listeners.push(listener);
          for (const message of pending.splice(0)) listener(message);
        },
        stop: () => {
          child.kill('SIGTERM');
          const force = setTimeout(() => child.kill('SIGKILL'), 3000);
          return exited.then(() => clearTimeout(force));
        },
      });
    });
  });
}

/** Runs the generator once and returns its result. */
export function runGenerator(config: GeneratorConfig): Promise<LoadResult> {
  const [file, argv] = command(['bench/load/generator.ts'], undefined);
  const child = spawn(file, argv, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  // On stdin: a config with a thousand signers is beyond what an environment variable holds.
  child.stdin!.end(JSON.stringify(config));
  return lastJsonLine<LoadResult>(child, 'The load generator');
}

/** Runs a plain node script to completion and returns its last stdout line as JSON. */
export function runScript<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  return lastJsonLine<T>(child, args[0] ?? 'a script');
}

/** Settles with the JSON of a child's last stdout line once it exits 0; else its stderr's tail. */
function lastJsonLine<T>(child: ChildProcess, what: string): Promise<T> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      children.delete(child);
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as T);
      else reject(new Error(`${what} failed (${code}):\n${stderr}`));
    });
  });
}
