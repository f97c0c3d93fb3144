/**
 * CPU time of other processes (the servers under test) from /proc, so a result can show the
 * server's core was saturated: a server near 100 % with the generator well below it means
 * the server, not the generator, set the pace. Linux only; elsewhere it reports nothing.
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
