/**
 * `node bench/faults/soak-80.ts [--minutes 30] [--window-minutes 5] [--connections 50]
 * [--out file.json]`: Latchkey's HMAC-SHA1 `/api/me` (the bench server, SQLite, the default
 * 300 s timestamp window) first at full load for 10 s to find its maximum, then paced at 80 %
 * of it for the given minutes. Reported per window of the given minutes: requests a second,
 * p99 (measured from each request's scheduled time), and the server's largest RSS and live
 * nonces. Checks, printed and in the exit status: 0 errors; the worst window's p99 at most
 * 1.5 × the best; live nonces never above the paced rate × (window + one upkeep interval) with
 * 10 % slack; RSS of the last window at most 1.25 × that of the second (the first holds the
 * nonce store filling up). `--minutes 1 --window-minutes 0.25` is the smoke run.
 */
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGenerator, runScript, startServer } from '../processes.ts';
import type { SoakSample } from '../results.ts';
import { scenarios } from '../scenarios.ts';
import type { SeededCredentials } from '../seed/seed-latchkey.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    'window-minutes': { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    out: { type: 'string' },
  },
});
const durationMs = Number(values.minutes) * 60_000;
const windowMs = Number(values['window-minutes']) * 60_000;
const connections = Number(values.connections);
/** The server's timestamp window (the default) and its upkeep interval, in seconds. */
const TIMESTAMP_WINDOW_SECONDS = 300;
const UPKEEP_SECONDS = 5;

const dir = mkdtempSync(join(tmpdir(), 'latchkey-soak80-'));
const database = join(dir, 'soak.db');
const credentials = await runScript<SeededCredentials>([
  'bench/seed/seed-latchkey.ts',
  '--database',
  database,
]);
const sampleMs = Math.min(5000, Math.max(250, windowMs / 20));
const server = await startServer([
  'bench/servers/latchkey.ts',
  '--database',
  database,
  '--sample-ms',
  String(sampleMs),
]);
const samples: SoakSample[] = [];
server.onMessage((message) => {
  const sample = message['sample'] as SoakSample | undefined;
  if (sample !== undefined) samples.push(sample);
});
const hmac = scenarios.find((s) => s.id === 'hmac-sha1')!;
const workload = () =>
  hmac.workload({ host: `127.0.0.1:${server.port}`, credentials, poolSize: 0 });

try {
  const full = await runGenerator({
    load: {
      host: '127.0.0.1',
      port: server.port,
      connections,
      warmupMs: 2000,
      durationMs: 10_000,
    },
    workload: workload(),
  });
  const rate = Math.round(full.rps * 0.8);
  console.log(`maximum ${Math.round(full.rps)} requests a second; pacing at ${rate}`);
  const startedAt = samples.at(-1)?.t ?? 0;
  const paced = await runGenerator({
    load: {
      host: '127.0.0.1',
      port: server.port,
      connections,
      warmupMs: 0,
      durationMs,
      rate,
      timelineMs: windowMs,
      serverPids: [server.pid],
    },
    workload: workload(),
  });
  await new Promise((resolve) => setTimeout(resolve, sampleMs + 100));

  const timeline = paced.timeline ?? [];
  const windows = timeline.map((point, i) => {
    const from = startedAt + (i === 0 ? 0 : timeline[i - 1]!.t);
    const to = startedAt + point.t;
    const inWindow = samples.filter((s) => s.t > from && s.t <= to);
    return {
      endsAtSeconds: Math.round(point.t),
      rps: Math.round(point.rps),
      p99: point.p99,
      maxRss: Math.max(0, ...inWindow.map((s) => s.rss)),
      maxNonces: Math.max(0, ...inWindow.map((s) => s.nonces)),
    };
  });
  const p99s = windows.map((w) => w.p99);
  const nonceBound = Math.ceil(rate * (TIMESTAMP_WINDOW_SECONDS + UPKEEP_SECONDS) * 1.1);
  const second = windows[1] ?? windows[0];
  const last = windows.at(-1);
  const findings = {
    maximum: Math.round(full.rps),
    rate,
    minutes: Number(values.minutes),
    requests: paced.requests,
    errors: paced.errors + paced.socketErrors,
    errorsByStatus: paced.errorsByStatus,
    worstP99: Math.max(...p99s),
    bestP99: Math.min(...p99s),
    p99Ratio: Math.max(...p99s) / Math.min(...p99s),
    maxNonces: Math.max(0, ...samples.map((s) => s.nonces)),
    nonceBound,
    rssSecondWindow: second?.maxRss ?? 0,
    rssLastWindow: last?.maxRss ?? 0,
    windows,
  };
  const checks = {
    'no errors': findings.errors === 0,
    'worst window p99 ≤ 1.5 × the best': findings.p99Ratio <= 1.5,
    'live nonces bounded': findings.maxNonces <= nonceBound,
    'memory flat': findings.rssLastWindow <= 1.25 * findings.rssSecondWindow,
  };
  console.log('| window ends (s) | req/s | p99 (ms) | RSS (MB) | live nonces |');
  console.log('| --: | --: | --: | --: | --: |');
  for (const w of windows) {
    console.log(
      `| ${w.endsAtSeconds} | ${w.rps} | ${w.p99.toFixed(1)} | ${(w.maxRss / 1e6).toFixed(1)} | ${w.maxNonces} |`,
    );
  }
  for (const [check, passed] of Object.entries(checks)) {
    console.log(`${passed ? 'ok  ' : 'FAIL'} ${check}`);
  }
  console.log(JSON.stringify({ ...findings, windows: undefined, checks }));
  if (values.out !== undefined) {
    writeFileSync(values.out, `${JSON.stringify({ ...findings, checks }, null, 2)}\n`);
  }
  process.exitCode = Object.values(checks).every(Boolean) ? 0 : 1;
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
