/** What a result depends on: the machine, the Node version, and whether cores are pinned. */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';

export interface Machine {
  readonly date: string;
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  readonly loadAverage: number;
  /** Core lists for server and generator, or undefined when pinning is not possible. */
  readonly pinning: { readonly server: string; readonly generator: string } | undefined;
  /** Why the run is unpinned, when it is. */
  readonly pinningNote: string | undefined;
  /** The commit measured (servers load the working tree's sources when they start). */
  readonly commit: string | undefined;
}

/** The checked-out commit, short form, or undefined outside a git work tree. */
export function gitHead(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

export function describeMachine(): Machine {
  const cores = availableParallelism();
  let pinningNote: string | undefined;
  if (cores < 2) pinningNote = 'one core only: server and generator share it';
  else {
    try {
      execFileSync('taskset', ['-c', '1', 'true'], { stdio: 'ignore' });
    } catch {
      pinningNote = '`taskset` is missing or not permitted (install util-linux): runs are unpinned';
    }
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores,
    loadAverage: loadavg()[0] ?? 0,
    pinning: pinningNote === undefined ? { server: '0', generator: '1' } : undefined,
    pinningNote,
    commit: gitHead(),
  };
}

/**
 * Whether anything the measured processes load (src/, the servers, the generator, the seeding)
 * differs between two commits; undefined when git cannot tell.
 */
export function measuredSourcesChanged(from: string, to: string): boolean | undefined {
  try {
    const names = execFileSync(
      'git',
      [
        'diff',
        '--name-only',
        from,
        to,
        '--',
        'src',
        'bench/servers',
        'bench/load',
        'bench/seed',
        'bin',
      ],
      { encoding: 'utf8' },
    );
    return names.trim() !== '';
  } catch {
    return undefined;
  }
}
