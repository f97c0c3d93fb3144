/**
 * `npm run bench`: the benchmark harness. Runs every scenario beside the bare
 * node:http limit (bench/rounds.ts), optionally the soak and CPU profiles, then writes
 * docs/benchmarks.md, docs/images/benchmarks.svg (and a flame graph per profile) and
 * bench/results/latest.json, printing the changes against the previous record. Options:
 * bench/options.ts.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { describeMachine, gitHead } from './machine.ts';
import { parseOptions } from './options.ts';
import { ROOT, setNiceness } from './processes.ts';
import { runProfiles } from './profile.ts';
import { compareRuns } from './report/compare.ts';
import { renderFlameGraph } from './report/flame-graph.ts';
import { NOTES_END, NOTES_START, renderMarkdown } from './report/markdown.ts';
import { renderChart } from './report/svg.ts';
import { judgeTargets } from './report/targets.ts';
import type { ProfileRecord, RunRecord } from './results.ts';
import { runRounds, seedDatabases } from './rounds.ts';
import { servers } from './scenarios.ts';
import type { RunContext } from './rounds.ts';
import { runSoak } from './soak.ts';

const options = parseOptions(process.argv.slice(2));
const latest = `${ROOT}bench/results/latest.json`;
const previous = existsSync(latest)
  ? (JSON.parse(readFileSync(latest, 'utf8')) as RunRecord)
  : undefined;
if (options.report) {
  if (previous === undefined) throw new Error('No recorded run in bench/results/latest.json');
  writeReports(previous);
  process.exit(0);
}
setNiceness(options.nice);
const machine = describeMachine();
const began = performance.now();
const log = (line: string) => {
  const seconds = Math.round((performance.now() - began) / 1000);
  const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  process.stdout.write(line === '' ? '\n' : `[${clock.padStart(5)}] ${line}\n`);
};
const dir = mkdtempSync(`${tmpdir()}/latchkey-bench-`);
const context: RunContext = { options, machine, dir, log };

log(
  options.soakOnly
    ? `Latchkey benchmarks: the soak only (${options.soakSeconds} s), merged into the recorded run`
    : `Latchkey benchmarks: ${options.mode}, ${options.rounds} round(s) × ${options.durationMs / 1000} s, ${options.connections} connections`,
);
log(
  `Node ${machine.node}, ${machine.cpu}, ${machine.cores} cores, load average ${machine.loadAverage.toFixed(2)}, commit ${machine.commit}`,
);
log(
  machine.pinning === undefined
    ? `Unpinned: ${machine.pinningNote}`
    : 'Server pinned to core 0, generator to core 1 (taskset)',
);

let crashed = false;
try {
  const run = options.soakOnly
    ? await soakOnly()
    : options.profileOnly
      ? await profileOnly()
      : await fullRun();
  const targets = judgeTargets(run);
  log('');
  for (const t of targets) log(`${t.status.padEnd(12)} ${t.target}: ${t.measured}`);
  const failed = run.scenarios.filter((s) => s.status === 'failed');
  for (const s of failed) log(`FAILED ${s.id}: ${s.note}`);
  crashed ||= failed.length > 0;
  if (previous !== undefined && !options.soakOnly && !options.profileOnly) {
    log('');
    for (const line of compareRuns(previous, run)) log(line);
  }
  if (options.write) writeReports(run);
} catch (error) {
  crashed = true;
  log(
    `The benchmark run crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(crashed ? 1 : 0);

async function fullRun(): Promise<RunRecord> {
  const outcome = await runRounds(context);
  const run: RunRecord = {
    version: 1,
    machine,
    options,
    scenarios: outcome.records,
    startup: outcome.startup,
    // Without --soak the recorded soak is kept; the docs give its own date and commit.
    soak: options.soak ? await soak() : previous?.soak,
    profiles: undefined,
    commitAtEnd: undefined,
  };
  // Without --profile the recorded profiles are kept, as the soak is.
  run.profiles = options.profile ? await profiles(outcome.seeded) : previous?.profiles;
  run.commitAtEnd = gitHead();
  if (run.commitAtEnd !== machine.commit) {
    log(`Note: HEAD moved from ${machine.commit} to ${run.commitAtEnd} during the run.`);
  }
  return run;
}

async function profiles(seeded: Parameters<typeof runProfiles>[1]): Promise<RunRecord['profiles']> {
  const records = await runProfiles(context, seeded);
  for (const profile of records) {
    log(`Self time in the server during ${profile.scenario}, by area and by function:`);
    for (const e of [...profile.areas.slice(0, 6), ...profile.top.slice(0, 8)]) {
      log(`  ${e.selfPercent.toFixed(1).padStart(5)} %  ${e.name}  ${e.where}`);
    }
  }
  return records;
}

/** The CPU profiles alone, put into the recorded run in place of its profiles. */
async function profileOnly(): Promise<RunRecord> {
  if (previous === undefined) throw new Error('--profile-only needs a recorded run first');
  const defs = servers.filter((d) => ['latchkey', 'latchkey-flows', 'gateway'].includes(d.id));
  const seeded = await seedDatabases(context, defs);
  return { ...previous, profiles: await profiles(seeded) };
}

/** The soak alone, put into the recorded run in place of its soak. */
async function soakOnly(): Promise<RunRecord> {
  const measured = await soak();
  if (measured === undefined) throw new Error('The soak failed.');
  const base: RunRecord = previous ?? {
    version: 1,
    machine,
    options,
    scenarios: [],
    startup: [],
    soak: undefined,
    profiles: undefined,
    commitAtEnd: machine.commit,
  };
  return { ...base, soak: measured };
}

async function soak(): Promise<RunRecord['soak']> {
  try {
    return await runSoak(context);
  } catch (error) {
    crashed = true;
    log(`soak FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Writes the recorded run, its flame graphs, docs/benchmarks.md and the chart. */
function writeReports(recorded: RunRecord): void {
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  mkdirSync(`${ROOT}docs/images`, { recursive: true });
  const run = { ...recorded, profiles: recorded.profiles?.map(writeFlameGraph) };
  writeFileSync(latest, `${JSON.stringify(run, null, 1)}\n`);
  const docs = `${ROOT}docs/benchmarks.md`;
  writeFileSync(docs, renderMarkdown(run, judgeTargets(run), existingNotes(docs)));
  writeFileSync(`${ROOT}docs/images/benchmarks.svg`, renderChart(run));
  process.stdout.write('Wrote docs/benchmarks.md and docs/images/benchmarks.svg\n');
}

/**
 * The flame graph of a recorded profile, drawn from the .cpuprofile the profiling run left in
 * bench/results (not committed). Where that file is missing (a fresh clone) or older than the
 * profile, the graph already in docs/images stays as it is.
 */
function writeFlameGraph(profile: ProfileRecord): ProfileRecord {
  const source = `${ROOT}bench/results/${profile.scenario}.cpuprofile`;
  const profiled = Date.parse(profile.date ?? '') || 0;
  if (!existsSync(source) || statSync(source).mtimeMs < profiled) return profile;
  const image = `images/flame-${profile.scenario}.svg`;
  const title = `Where the server's time goes: ${profile.scenario} (npm run bench -- --profile)`;
  const subtitle = `CPU profile of ${profile.date?.slice(0, 16) ?? 'the recorded run'}; width is the share of busy samples, callers below their callees; hover a box for its figures`;
  writeFileSync(
    `${ROOT}docs/${image}`,
    renderFlameGraph(readFileSync(source, 'utf8'), title, subtitle),
  );
  process.stdout.write(`Wrote docs/${image}\n`);
  return { ...profile, flameGraph: image };
}

function existingNotes(path: string): string {
  if (!existsSync(path)) return 'No notes yet.';
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(NOTES_START);
  const end = text.indexOf(NOTES_END);
  return start < 0 || end < start ? 'No notes yet.' : text.slice(start + NOTES_START.length, end);
}
