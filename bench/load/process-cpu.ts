/**
 * CPU time from /proc: the servers under test, so a result can show the server's core was
 * saturated (a server near 100 % with the generator well below it means the server, not the
 * generator, set the pace), and the whole machine, so the share taken by other people's work
 * (the noise on a shared machine) is on record. Linux only; elsewhere it reports nothing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond =
        Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User plus system CPU seconds used so far by the processes, or undefined if unreadable. */
export function cpuSeconds(pids: readonly number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let ticks = 0;
  try {
    for (const pid of pids) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start after the last ")".
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    }
  } catch {
    return undefined;
  }
  return ticks / clockTicks();
}

/**
 * CPU seconds the whole machine and each core have spent busy, from one read of /proc/stat:
 * idle and I/O wait excluded, the hypervisor's steal included (time this machine's work could
 * not run is noise too). Keys: `cpu` for the machine, `cpu0`, `cpu1`, … for the cores.
 */
export function busySeconds(): Map<string, number> | undefined {
  try {
    const busy = new Map<string, number>();
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      if (!line.startsWith('cpu')) continue;
      const [name, ...fields] = line.trim().split(/\s+/);
      const ticks = fields.map(Number);
      const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0); // through steal
      busy.set(name!, (total - ticks[3]! - ticks[4]!) / clockTicks()); // minus idle, iowait
    }
    return busy;
  } catch {
    return undefined;
  }
}

export interface CpuSnapshot {
  readonly at: number;
  readonly own: NodeJS.CpuUsage;
  readonly server: number | undefined;
  readonly machine: number | undefined;
  /** Busy seconds of the core the server is pinned to, when it is pinned to one. */
  readonly serverCore: number | undefined;
}

export function cpuSnapshot(serverPids: readonly number[], serverCore?: number): CpuSnapshot {
  const busy = busySeconds();
  return {
    at: performance.now(),
    own: process.cpuUsage(),
    server: cpuSeconds(serverPids),
    machine: busy?.get('cpu'),
    serverCore: serverCore === undefined ? undefined : busy?.get(`cpu${serverCore}`),
  };
}

/**
 * Cores used since a snapshot: by this process, by the server, by everyone else, and by
 * everyone else on the server's own core (what took that core from the server).
 */
export function cpuSharesSince(
  since: CpuSnapshot,
  serverPids: readonly number[],
  serverCore?: number,
): {
  generator: number;
  server: number | undefined;
  other: number | undefined;
  otherOnServerCore: number | undefined;
} {
  const now = cpuSnapshot(serverPids, serverCore);
  const seconds = Math.max((now.at - since.at) / 1000, 1e-3);
  const own = (now.own.user + now.own.system - since.own.user - since.own.system) / 1e6;
  const server =
    now.server === undefined || since.server === undefined ? undefined : now.server - since.server;
  const machine =
    now.machine === undefined || since.machine === undefined
      ? undefined
      : now.machine - since.machine;
  return {
    generator: own / seconds,
    server: server === undefined ? undefined : server / seconds,
    other:
      machine === undefined ? undefined : Math.max(0, (machine - own - (server ?? 0)) / seconds),
    otherOnServerCore:
      now.serverCore === undefined || since.serverCore === undefined || server === undefined
        ? undefined
        : Math.max(0, (now.serverCore - since.serverCore - server) / seconds),
  };
}
