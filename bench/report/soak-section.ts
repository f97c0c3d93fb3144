/** The soak's section of docs/benchmarks.md: store size and memory over time, and the stalls. */
import type { RunRecord, SoakRecord } from '../results.ts';
import { soakFindings } from '../soak.ts';
import { ms, n } from './format.ts';

export function soakSection(run: RunRecord): string[] {
  const soak = run.soak;
  if (soak === undefined) {
    return [
      '## Soak',
      '',
      'Not part of this record; `npm run bench -- --soak` runs it (5 minutes).',
      '',
    ];
  }
  const f = soakFindings(soak);
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const step = Math.max(1, Math.floor(soak.samples.length / 12));
  const picked = soak.samples.filter((_, i) => i % step === 0 || i === soak.samples.length - 1);
  const when =
    soak.date === run.machine.date
      ? ''
      : `Measured ${soak.date ?? 'earlier'} on commit ${soak.commit ?? 'unknown'}, in a separate run from the tables above (\`npm run bench -- --soak-only\`). `;
  return [
    '## Soak',
    '',
    `${when}${n(soak.seconds)} s of HMAC-SHA1 \`/api/me\` at full load: ${n(soak.result.rps)} req/s, p99 ${ms(soak.result.latency.p99)} ms, ${soak.result.errors} errors. ` +
      `The server runs with a timestamp window of ${soak.windowSeconds} s${soak.windowSeconds === 300 ? '' : ' (the default is 300 s; a shorter window lets a five-minute run reach its steady state)'}: nonces expire ${soak.windowSeconds} s after their timestamp, so the store grows for the first ${soak.windowSeconds} s and is purged continuously after that.`,
    '',
    '| t (s) | live nonces | RSS MB | heap MB | database files MB | of which WAL MB |',
    '|---:|---:|---:|---:|---:|---:|',
    ...picked.map(
      (s) =>
        `| ${Math.round(s.t)} | ${n(s.nonces)} | ${mb(s.rss)} | ${mb(s.heapUsed)} | ${mb(s.diskBytes)} | ${s.walBytes === undefined ? '–' : mb(s.walBytes)} |`,
    ),
    '',
    f === undefined
      ? ''
      : `Per-interval p99: median ${ms(f.medianIntervalP99)} ms, worst ${ms(f.worstIntervalP99)} ms (a pause counts as visible when the worst exceeds twice the median and 5 ms), ` +
        `leaving out ${f.starvedIntervals} of ${soak.timeline.length} intervals in which other work took the server's core (` +
        (soak.timeline.some((p) => p.otherOnServerCore !== undefined)
          ? "the server under three quarters of its core while other processes, or the hypervisor's steal, held at least a quarter of it"
          : 'others over one core and the server under half of its core') +
        '). ' +
        "Bytes per live nonce = all growth of the database files since before the load (the WAL's high-water mark included: the checkpoint worker restarts the log and reuses the file rather than shrinking it, so it is disk the nonces cost) over the most live nonces seen, plus RSS growth from a tenth of the run (past start-up and JIT warm-up) over the nonces added meanwhile.",
    '',
    ...worstIntervals(soak),
  ];
}

/** The slowest intervals, with who had the CPU then: the server, or other people's work. */
function worstIntervals(soak: SoakRecord): string[] {
  const worst = [...soak.timeline].sort((a, b) => b.p99 - a.p99).slice(0, 5);
  if (worst.length === 0) return [];
  const pct = (share: number | undefined) =>
    share === undefined ? '?' : `${Math.round(share * 100)} %`;
  return [
    'The five intervals with the highest p99, with the CPU used meanwhile by the server and by',
    "everything else on the machine (a stall with the server busy is the server's own; with others",
    'busy and the server idle, it is the shared machine):',
    '',
    "| t (s) | req/s | p99 ms | server CPU | others' CPU | of which on the server's core |",
    '|---:|---:|---:|---:|---:|---:|',
    ...worst.map(
      (p) =>
        `| ${Math.round(p.t)} | ${n(p.rps)} | ${ms(p.p99)} | ${pct(p.serverCpu)} | ${pct(p.otherCpu)} | ${pct(p.otherOnServerCore)} |`,
    ),
    '',
  ];
}
