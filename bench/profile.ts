/**
 * `--profile`: Latchkey under load with V8's CPU profiler on for the measured window only,
 * for each scenario whose target matters most (HMAC-SHA1, RSA-SHA1, flows, gateway), reduced
 * to self time by area and by function so docs/benchmarks.md can say where the time goes.
 * The profiles are left in bench/results/<scenario>.cpuprofile (ignored by git), from which
 * the report draws docs/images/flame-<scenario>.svg (bench/report/flame-graph.ts); the files
 * also open in Chrome DevTools or speedscope.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { areaOf, locate, nativeAreaOf } from './profile-areas.ts';
import type { ProfileNode } from './profile-areas.ts';
import { ROOT, runGenerator } from './processes.ts';
import type { ProfileEntry, ProfileRecord } from './results.ts';
import type { RunContext } from './rounds.ts';
import { scenarios, servers } from './scenarios.ts';
import type { ServerId } from './scenarios.ts';
import type { SeededCredentials } from './seed/seed-latchkey.ts';
import { startGroup } from './server-group.ts';

export const PROFILED = ['hmac-sha1', 'hmac-logged', 'rsa-sha1', 'flows', 'gateway'] as const;

export async function runProfiles(
  context: RunContext,
  seeded: ReadonlyMap<ServerId, SeededCredentials>,
): Promise<ProfileRecord[]> {
  const records: ProfileRecord[] = [];
  for (const id of PROFILED) {
    const scenario = scenarios.find((s) => s.id === id)!;
    const def = servers.find((d) => d.id === scenario.server)!;
    const credentials = seeded.get(def.id);
    if (credentials === undefined || def.unavailable() !== undefined) continue;
    context.log(`profiling ${id}`);
    try {
      records.push(await profileOne(context, id, credentials));
    } catch (error) {
      context.log(`profiling ${id} FAILED: ${error instanceof Error ? error.message : error}`);
    }
  }
  return records;
}

async function profileOne(
  context: RunContext,
  id: (typeof PROFILED)[number],
  credentials: SeededCredentials,
): Promise<ProfileRecord> {
  const scenario = scenarios.find((s) => s.id === id)!;
  const def = servers.find((d) => d.id === scenario.server)!;
  const file = `${context.dir}/${id}.cpuprofile`;
  const group = await startGroup(def, {
    dir: context.dir,
    pin: context.machine.pinning?.server,
    leanEnv: '{}',
    latchkeyArgs: ['--profile-file', file],
  });
  const { options } = context;
  // A fresh server, warmed as the first scenario of a round is (options.ts).
  const warmupMs = options.warmupMs + options.serverWarmupMs;
  // Profile the measured window only: start when the generator's warm-up ends.
  const warm = setTimeout(() => process.kill(group.main.pid, 'SIGUSR2'), warmupMs + 300);
  try {
    await runGenerator({
      load: {
        host: '127.0.0.1',
        port: group.main.port,
        connections: options.connections,
        warmupMs,
        durationMs: options.durationMs,
      },
      workload: scenario.workload({
        host: `127.0.0.1:${group.main.port}`,
        credentials,
        poolSize: Math.ceil((12_000 * (warmupMs + options.durationMs)) / 1000),
      }),
      pin: context.machine.pinning?.generator,
    });
  } finally {
    clearTimeout(warm);
    await group.stop();
  }
  if (!existsSync(file)) throw new Error('The server wrote no CPU profile.');
  copyFileSync(file, `${ROOT}bench/results/${id}.cpuprofile`);
  const summary = summarizeProfile(readFileSync(file, 'utf8'));
  return {
    scenario: id,
    date: context.machine.date,
    top: summary.functions.slice(0, 20),
    areas: summary.areas,
  };
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
    const area = engine ? frame.functionName : native ? nativeAreaOf(where) : areaOf(where);
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
