/**
 * `--profile`: Latchkey under the HMAC-SHA1 load with V8's CPU profiler on, and the
 * profile reduced to the functions with the most self time, so docs/benchmarks.md can say
 * where the time goes. The .cpuprofile file stays in the scratch directory's copy under
 * bench/results/ for a flame graph (Chrome DevTools, speedscope).
 */
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ROOT, runGenerator, startServer } from './processes.ts';
import type { ProfileEntry } from './results.ts';
import type { RunContext } from './rounds.ts';
import { scenarios } from './scenarios.ts';
import type { SeededCredentials } from './seed/seed-latchkey.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

export async function runProfile(
  context: RunContext,
  credentials: SeededCredentials,
): Promise<{ scenario: string; top: ProfileEntry[] }> {
  const dir = `${context.dir}/profile`;
  const server = await startServer(
    [
      '--cpu-prof',
      '--cpu-prof-dir',
      dir,
      'bench/servers/latchkey.ts',
      '--database',
      `${context.dir}/latchkey.db`,
    ],
    { pin: context.machine.pinning?.server },
  );
  const hmac = scenarios.find((s) => s.id === 'hmac-sha1')!;
  context.log('profiling hmac-sha1');
  await runGenerator({
    load: {
      host: '127.0.0.1',
      port: server.port,
      connections: context.options.connections,
      warmupMs: context.options.warmupMs,
      durationMs: context.options.durationMs,
    },
    workload: hmac.workload({ host: `127.0.0.1:${server.port}`, credentials, poolSize: 0 }),
    pin: context.machine.pinning?.generator,
  });
  await server.stop();
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error('The server wrote no CPU profile.');
  copyFileSync(`${dir}/${file}`, `${ROOT}bench/results/latchkey-hmac.cpuprofile`);
  return { scenario: 'hmac-sha1', top: summarizeProfile(readFileSync(`${dir}/${file}`, 'utf8')) };
}

/** Self time by function, as a share of the samples, top 20. */
export function summarizeProfile(text: string, top = 20): ProfileEntry[] {
  const profile = JSON.parse(text) as { nodes: ProfileNode[] };
  const totals = new Map<string, { name: string; where: string; hits: number }>();
  let all = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    all += hits;
    const frame = node.callFrame;
    if (frame.functionName === '(idle)') continue;
    const where = frame.url === '' ? '' : `${shorten(frame.url)}:${frame.lineNumber + 1}`;
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    const key = `${name} ${where}`;
    const entry = totals.get(key) ?? { name, where, hits: 0 };
    entry.hits += hits;
    totals.set(key, entry);
  }
  return [...totals.values()]
    .sort((a, b) => b.hits - a.hits)
    .slice(0, top)
    .map((e) => ({ name: e.name, where: e.where, selfPercent: (e.hits / Math.max(all, 1)) * 100 }));
}

function shorten(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  return path.startsWith('/') ? relative(ROOT, path) : path;
}
