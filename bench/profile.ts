/**
 * `--profile`: Latchkey under the HMAC-SHA1 load with V8's CPU profiler on, and the
 * profile reduced to the functions with the most self time, so docs/benchmarks.md can say
 * where the time goes. The .cpuprofile file stays in the scratch directory's copy under
 * bench/results/ for a flame graph (Chrome DevTools, speedscope).
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
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
  children?: number[];
}

export async function runProfile(
  context: RunContext,
  credentials: SeededCredentials,
): Promise<{ scenario: string; top: ProfileEntry[]; areas: ProfileEntry[] }> {
  const file = `${context.dir}/latchkey-hmac.cpuprofile`;
  const server = await startServer(
    [
      'bench/servers/latchkey.ts',
      '--database',
      `${context.dir}/latchkey.db`,
      '--profile-file',
      file,
    ],
    { pin: context.machine.pinning?.server },
  );
  const hmac = scenarios.find((s) => s.id === 'hmac-sha1')!;
  context.log('profiling hmac-sha1');
  // Profile the measured window only: start when the generator's warm-up ends.
  const warm = setTimeout(
    () => process.kill(server.pid, 'SIGUSR2'),
    context.options.warmupMs + 300,
  );
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
  clearTimeout(warm);
  await server.stop();
  if (!existsSync(file)) throw new Error('The server wrote no CPU profile.');
  copyFileSync(file, `${ROOT}bench/results/latchkey-hmac.cpuprofile`);
  const summary = summarizeProfile(readFileSync(file, 'utf8'));
  return { scenario: 'hmac-sha1', top: summary.functions.slice(0, 25), areas: summary.areas };
}

/**
 * Self time as a share of busy samples, by function and by area (our layers, each package,
 * Node's internals). A native function (SQLite's statement calls, HMAC, a buffer write) is
 * charged to the area of the JavaScript that called it, and named with its caller.
 */
export function summarizeProfile(text: string): {
  functions: ProfileEntry[];
  areas: ProfileEntry[];
} {
  const { nodes } = JSON.parse(text) as { nodes: ProfileNode[] };
  const parent = new Map<number, ProfileNode>();
  for (const node of nodes) for (const child of node.children ?? []) parent.set(child, node);
  const functions = new Map<string, ProfileEntry>();
  const areas = new Map<string, number>();
  let busy = 0;
  for (const node of nodes)
    busy += node.callFrame.functionName === '(idle)' ? 0 : (node.hitCount ?? 0);
  const share = (hits: number) => (hits / Math.max(busy, 1)) * 100;
  for (const node of nodes) {
    const hits = node.hitCount ?? 0;
    const frame = node.callFrame;
    if (hits === 0 || frame.functionName === '(idle)') continue;
    const engine = frame.functionName.startsWith('(');
    let caller: ProfileNode | undefined = node;
    while (caller !== undefined && caller.callFrame.url === '') caller = parent.get(caller.id);
    const where = caller === undefined || engine ? '' : locate(caller);
    const native = frame.url === '' && !engine;
    const name =
      (frame.functionName || '(anonymous)') +
      (native && caller ? ` (native, from ${caller.callFrame.functionName || 'anonymous'})` : '');
    const key = `${name} ${where}`;
    const entry = functions.get(key);
    functions.set(key, { name, where, selfPercent: (entry?.selfPercent ?? 0) + share(hits) });
    const area = engine ? frame.functionName : areaOf(where);
    areas.set(area, (areas.get(area) ?? 0) + share(hits));
  }
  const bySize = (x: ProfileEntry, y: ProfileEntry) => y.selfPercent - x.selfPercent;
  return {
    functions: [...functions.values()].sort(bySize),
    areas: [...areas.entries()]
      .map(([name, selfPercent]) => ({ name, where: '', selfPercent }))
      .sort(bySize),
  };
}

function locate(node: ProfileNode): string {
  return `${shorten(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
}

function areaOf(where: string): string {
  if (where === '') return 'native, no JavaScript caller';
  if (where.startsWith('src/')) return where.split('/').slice(0, 2).join('/');
  if (where.startsWith('bench/')) return 'bench server script';
  if (where.startsWith('node:')) return 'Node.js internals';
  const parts = where.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!.split(':')[0]!;
}

function shorten(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  return path.startsWith('/') ? relative(ROOT, path) : path;
}
