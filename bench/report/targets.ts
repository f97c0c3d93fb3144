/** The speed targets, each judged against the measured figures of one run. */
import { median } from '../results.ts';
import type { RunRecord } from '../results.ts';
import { soakFindings } from '../soak.ts';
import { ms, n } from './format.ts';

export interface TargetResult {
  readonly target: string;
  readonly measured: string;
  readonly status: 'met' | 'missed' | 'not measured';
}

const f2 = (x: number) => x.toFixed(2);

export function judgeTargets(run: RunRecord): TargetResult[] {
  const find = (id: string) => run.scenarios.find((s) => s.id === id);
  const summary = (id: string) => {
    const record = find(id);
    return record?.status === 'ok' ? record.summary : undefined;
  };
  const why = (id: string) => {
    const record = find(id);
    return record === undefined ? 'not run (--only)' : (record.note ?? record.status);
  };
  const results: TargetResult[] = [];
  const judge = (
    target: string,
    measured: string | undefined,
    met: boolean | undefined,
    id: string,
  ) =>
    results.push(
      measured === undefined || met === undefined
        ? { target, measured: why(id), status: 'not measured' }
        : { target, measured, status: met ? 'met' : 'missed' },
    );

  // Each speed target is a ratio of two rows of the same run.
  const hmac = summary('hmac-sha1');
  const limit = summary('limit');
  const logged = summary('hmac-logged');
  judge(
    '`latchkey serve` as `npm start` runs it (access log on), HMAC-SHA1 `/api/me`: ≥ 0.90 × the same server unlogged, and ≥ 0.45 × bare node:http',
    logged === undefined || hmac === undefined || logged.ratio === undefined
      ? undefined
      : `${f2(logged.rps / hmac.rps)} × unlogged (${n(logged.rps)} vs ${n(hmac.rps)} req/s); ${f2(logged.ratio)} × bare node:http`,
    logged === undefined || hmac === undefined || logged.ratio === undefined
      ? undefined
      : logged.rps >= 0.9 * hmac.rps && logged.ratio >= 0.45,
    'hmac-logged',
  );
  const gateway = summary('gateway');
  const bareProxy = summary('bare-proxy');
  judge(
    "Gateway, HMAC-SHA1, in front of a bare upstream: ≥ 0.60 × the bare node:http + undici proxy (no verification), and its p99 ≤ 2 × the proxy's",
    gateway === undefined || bareProxy === undefined
      ? undefined
      : `${f2(gateway.rps / bareProxy.rps)} × (${n(gateway.rps)} vs ${n(bareProxy.rps)} req/s); p99 ${ms(gateway.p99)} vs ${ms(bareProxy.p99)} ms (${f2(gateway.p99 / bareProxy.p99)} ×)`,
    gateway === undefined || bareProxy === undefined
      ? undefined
      : gateway.rps >= 0.6 * bareProxy.rps && gateway.p99 <= 2 * bareProxy.p99,
    'gateway',
  );
  const attacked = summary('gateway-slow-upload');
  const unattacked = summary('gateway-50');
  judge(
    'Gateway under the slow-upload attack (140 uploads trickling a byte a second): the signed GETs’ p99 < 100 ms',
    attacked === undefined
      ? undefined
      : `p99 ${ms(attacked.p99)} ms, p50 ${ms(attacked.p50)} ms at ${n(attacked.rps)} req/s` +
          (unattacked === undefined
            ? ''
            : ` (without the attack at the same pace: p99 ${ms(unattacked.p99)} ms, p50 ${ms(unattacked.p50)} ms)`),
    attacked === undefined ? undefined : attacked.requests > 0 && attacked.p99 < 100,
    'gateway-slow-upload',
  );
  const paced = summary('hmac-sha1-80');
  const pacedLimit = summary('limit-80');
  const pacedHeap = summary('hmac-sha1-80-heap128');
  judge(
    `p99 at 80 % of Latchkey's own maximum, ${run.options.connections} connections: ≤ 1.5 × bare node:http's p99 at 80 % of its own maximum`,
    paced === undefined || pacedLimit === undefined
      ? undefined
      : `${f2(paced.p99 / pacedLimit.p99)} × (${ms(paced.p99)} vs ${ms(pacedLimit.p99)} ms)` +
          (pacedHeap === undefined
            ? ''
            : `; with --initial-old-space-size=128: ${ms(pacedHeap.p99)} ms (${f2(pacedHeap.p99 / pacedLimit.p99)} ×)`),
    paced === undefined || pacedLimit === undefined ? undefined : paced.p99 <= 1.5 * pacedLimit.p99,
    'hmac-sha1-80',
  );
  judge(
    'HMAC-SHA1 `/api/me` unlogged, requests per server CPU-second: ≥ 0.50 × the limit’s',
    hmac?.cpuRatio === undefined
      ? undefined
      : `${f2(hmac.cpuRatio)} (${n(hmac.perCore ?? 0)} vs ${n(limit?.perCore ?? 0)})`,
    hmac?.cpuRatio === undefined ? undefined : hmac.cpuRatio >= 0.5,
    'hmac-sha1',
  );
  const rsa = summary('rsa-sha1');
  const leanRsa = summary('lean-rsa');
  judge(
    'RSA-SHA1 (2048-bit): ≥ 1.5 × the lean RSA verifier',
    rsa === undefined || leanRsa === undefined
      ? undefined
      : `${f2(rsa.rps / leanRsa.rps)} × (${n(rsa.rps)} vs ${n(leanRsa.rps)} req/s)`,
    rsa === undefined || leanRsa === undefined ? undefined : rsa.rps >= 1.5 * leanRsa.rps,
    'rsa-sha1',
  );
  const flooded = summary('made-up-keys');
  judge(
    'A flood of made-up client keys (one request in five, each a new key): good requests ≥ 0.80 × HMAC-SHA1 `/api/me` without it',
    flooded === undefined || hmac === undefined
      ? undefined
      : `${f2(flooded.rps / hmac.rps)} × (${n(flooded.rps)} vs ${n(hmac.rps)} req/s)`,
    flooded === undefined || hmac === undefined ? undefined : flooded.rps >= 0.8 * hmac.rps,
    'made-up-keys',
  );
  const small = summary('tokens-1k');
  const large = summary('tokens-large');
  const largeLabel = run.options.largeTokens.toLocaleString('en-US');
  judge(
    `${largeLabel} stored tokens: within 10 % of the 1,000-token figure`,
    small === undefined || large === undefined
      ? undefined
      : `${n(large.rps)} vs ${n(small.rps)} req/s (${f2(large.rps / small.rps)})`,
    small === undefined || large === undefined ? undefined : large.rps >= 0.9 * small.rps,
    large === undefined ? 'tokens-large' : 'tokens-1k',
  );
  const startup = run.startup.find((s) => s.server === 'latchkey-large');
  const startMs = startup === undefined ? undefined : median(startup.ms);
  judge(
    `${largeLabel} stored tokens: start-up to ready under 1 s`,
    startMs === undefined
      ? undefined
      : `${n(startMs)} ms (spawn of \`latchkey serve\` to its first answer)`,
    startMs === undefined ? undefined : startMs < 1000,
    'tokens-large',
  );
  const flows = summary('flows');
  judge(
    'Complete flows: ≥ 1,000 per second per core',
    flows === undefined ? undefined : `${n(flows.unitsPerSecond)} flows/s`,
    flows === undefined ? undefined : flows.unitsPerSecond >= 1000,
    'flows',
  );
  soakTargets(run, results);
  return results;
}

function soakTargets(run: RunRecord, results: TargetResult[]): void {
  const findings = run.soak === undefined ? undefined : soakFindings(run.soak);
  const absent = run.soak === undefined ? 'not run (npm run bench -- --soak)' : 'no samples';
  const add = (target: string, measured: string | undefined, met: boolean) =>
    results.push(
      findings === undefined || measured === undefined
        ? { target, measured: absent, status: 'not measured' }
        : { target, measured: measured + earlier, status: met ? 'met' : 'missed' },
    );
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
  const earlier =
    run.soak !== undefined && run.soak.date !== run.machine.date
      ? ` (soak of ${run.soak.date?.slice(0, 16) ?? 'an earlier run'})`
      : '';
  const f = findings;
  add(
    'Live nonces ≤ rate × window',
    f &&
      `${n(f.maxNonces)} live at most; rate × window = ${n(f.nonceBound)} (requests in the busiest window + 5 s)`,
    f !== undefined && f.maxNonces <= f.nonceBound,
  );
  add(
    '≤ 48 bytes per live nonce (disk and memory together, measured)',
    f &&
      `${(f.diskBytesPerNonce + f.memoryBytesPerNonce).toFixed(1)} B (files ${f.diskBytesPerNonce.toFixed(1)} + RSS growth ${f.memoryBytesPerNonce.toFixed(1)})`,
    f !== undefined && f.diskBytesPerNonce + f.memoryBytesPerNonce <= 48,
  );
  add(
    'Purged continuously, no pause visible in p99',
    f &&
      `worst interval p99 ${ms(f.worstIntervalP99)} ms, median ${ms(f.medianIntervalP99)} ms` +
        (f.starvedIntervals > 0 ? ` (${f.starvedIntervals} starved intervals left out)` : ''),
    f !== undefined && f.worstIntervalP99 <= Math.max(2 * f.medianIntervalP99, 5),
  );
  add(
    `Memory flat over the ${duration(run.soak?.seconds ?? 300)} run (RSS at the end ≤ 1.1 × RSS at a quarter)`,
    f && `RSS ${mb(f.rssStart)} at start, ${mb(f.rssQuarter)} at ¼, ${mb(f.rssEnd)} at the end`,
    f !== undefined && f.rssEnd <= f.rssQuarter * 1.1,
  );
}

function duration(seconds: number): string {
  return seconds >= 60 ? `${Math.round(seconds / 60)}-minute` : `${seconds}-second`;
}
