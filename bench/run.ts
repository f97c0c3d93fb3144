/**
 * `npm run bench`: the benchmark harness of issue 7. Runs every scenario beside the bare
 * node:http limit (bench/rounds.ts), optionally the soak and a CPU profile, then writes
 * docs/benchmarks.md, docs/images/benchmarks.svg and bench/results/latest.json, printing
 * the changes against the previous record. Options: bench/options.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describeMachine, gitHead } from './machine.ts';
import { parseOptions } from './options.ts';
import { ROOT } from './processes.ts';
import { runProfile } from './profile.ts';
import { compareRuns } from './report/compare.ts';
import { NOTES_END, NOTES_START, renderMarkdown } from './report/markdown.ts';
import { renderChart } from './report/svg.ts';
import { judgeTargets } from './report/targets.ts';
import type { RunRecord } from './results.ts';
import { runRounds } from './rounds.ts';
import { runSoak } from './soak.ts';

const options = parseOptions(process.argv.slice(2));
const latest = `${ROOT}bench/results/latest.json`;
if (options.report) {
  const recorded = JSON.parse(readFileSync(latest, 'utf8')) as RunRecord;
  writeReports(recorded);
  process.exit(0);
}
const machine = describeMachine();
const log = (line: string) => process.stdout.write(`${line}\n`);
const dir = mkdtempSync(`${tmpdir()}/latchkey-bench-`);
const context = { options, machine, dir, log };

log(
  `Latchkey benchmarks: ${options.mode}, ${options.rounds} round(s) × ${options.durationMs / 1000} s, ${options.connections} connections`,
);
log(
  `Node ${machine.node}, ${machine.cpu}, ${machine.cores} cores, load average ${machine.loadAverage.toFixed(2)}`,
);
log(
  machine.pinning === undefined
    ? `Unpinned: ${machine.pinningNote}`
    : 'Server pinned to core 0, generator to core 1 (taskset)',
);

let crashed = false;
try {
  const outcome = await runRounds(context);
  const run: RunRecord = {
    version: 1,
    machine,
    options,
    scenarios: outcome.records,
    startup: outcome.startup,
    soak: undefined,
    profile: undefined,
    commitAtEnd: undefined,
  };
  if (options.soak) {
    try {
      run.soak = await runSoak(context);
    } catch (error) {
      crashed = true;
      log(`soak FAILED: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const seeded = outcome.seeded.get('latchkey');
  if (options.profile && seeded !== undefined) {
    run.profile = await runProfile(context, seeded);
    log('Self time in the server, by area and by function:');
    for (const e of [...run.profile.areas.slice(0, 8), ...run.profile.top.slice(0, 10)]) {
      log(`  ${e.selfPercent.toFixed(1).padStart(5)} %  ${e.name}  ${e.where}`);
    }
  }

  run.commitAtEnd = gitHead();
  if (run.commitAtEnd !== machine.commit) {
    log(
      `Note: HEAD moved from ${machine.commit} to ${run.commitAtEnd} during the run; later servers ran newer sources.`,
    );
  }
  const targets = judgeTargets(run);
  log('');
  for (const t of targets) log(`${t.status.padEnd(12)} ${t.target}: ${t.measured}`);
  const failed = run.scenarios.filter((s) => s.status === 'failed');
  for (const s of failed) log(`FAILED ${s.id}: ${s.note}`);
  crashed ||= failed.length > 0;

  if (existsSync(latest)) {
    const previous = JSON.parse(readFileSync(latest, 'utf8')) as RunRecord;
    log('');
    for (const line of compareRuns(previous, run)) log(line);
  }
  if (options.write) {
    mkdirSync(`${ROOT}bench/results`, { recursive: true });
    writeFileSync(latest, `${JSON.stringify(run, null, 1)}\n`);
    writeReports(run);
  }
} catch (error) {
  crashed = true;
  log(
    `The benchmark run crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(crashed ? 1 : 0);

function writeReports(run: RunRecord): void {
  const docs = `${ROOT}docs/benchmarks.md`;
  mkdirSync(`${ROOT}docs/images`, { recursive: true });
  writeFileSync(docs, renderMarkdown(run, judgeTargets(run), existingNotes(docs)));
  writeFileSync(`${ROOT}docs/images/benchmarks.svg`, renderChart(run));
  process.stdout.write('Wrote docs/benchmarks.md and docs/images/benchmarks.svg\n');
}

function existingNotes(path: string): string {
  if (!existsSync(path)) return 'No notes yet.';
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(NOTES_START);
  const end = text.indexOf(NOTES_END);
  return start < 0 || end < start ? 'No notes yet.' : text.slice(start + NOTES_START.length, end);
}
