/**
 * The soak: Latchkey's HMAC-SHA1 `/api/me` at full load for minutes, with the server
 * reporting its memory, the nonce store's live entries and its files' size over time, and
 * the generator reporting throughput and p99 per interval (a purge pause would show there).
 */
import { runGenerator, runScript, startServer } from './processes.ts';
import { SERVE_NODE_FLAGS } from './serve-flags.ts';
import type { SoakRecord, SoakSample } from './results.ts';
import type { RunContext } from './rounds.ts';
import { scenarios } from './scenarios.ts';
import type { SeededCredentials } from './seed/seed-latchkey.ts';

/**
 * The soak's timestamp window (an operator setting, 300 s by default). Nonces live one window,
 * so a five-minute run with the default window would end just as the first purge begins: no
 * steady state, no purge under load, and memory still growing by design (the live nonces'
 * index). With 60 s the store fills in the first minute and the remaining four show purging
 * at full load, the plateau of live nonces and whether memory stays flat.
 */
const SOAK_WINDOW_SECONDS = 60;
const SOAK_WARMUP_MS = 5000;

export async function runSoak(context: RunContext): Promise<SoakRecord> {
  const { options, log } = context;
  const database = `${context.dir}/soak.db`;
  const credentials = await runScript<SeededCredentials>([
    'bench/seed/seed-latchkey.ts',
    '--database',
    database,
  ]);
  const sampleMs = options.soakSeconds >= 60 ? 5000 : 500;
  const server = await startServer(
    [
      'bench/servers/latchkey.ts',
      '--database',
      database,
      '--sample-ms',
      String(sampleMs),
      '--window',
      String(SOAK_WINDOW_SECONDS),
    ],
    { pin: context.machine.pinning?.server, nodeFlags: SERVE_NODE_FLAGS },
  );
  const samples: SoakSample[] = [];
  server.onMessage((message) => {
    const sample = message['sample'] as SoakSample | undefined;
    if (sample === undefined) return;
    samples.push(sample);
    if (samples.length % Math.max(1, Math.round(30_000 / sampleMs)) === 1) {
      const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
      log(
        `soak t=${Math.round(sample.t)} s  live nonces ${sample.nonces.toLocaleString('en-US')}  ` +
          `rss ${mb(sample.rss)} MB  files ${mb(sample.diskBytes)} MB`,
      );
    }
  });
  const hmac = scenarios.find((s) => s.id === 'hmac-sha1')!;
  log(`soak: ${options.soakSeconds} s at full load`);
  try {
    const result = await runGenerator({
      load: {
        host: '127.0.0.1',
        port: server.port,
        connections: options.connections,
        // The first seconds are the JIT's warm-up, as in every other scenario (there 1 s): a
        // p99 from them says nothing about purging. The server's own samples start at once.
        warmupMs: SOAK_WARMUP_MS,
        durationMs: options.soakSeconds * 1000,
        timelineMs: Math.min(5000, Math.max(250, (options.soakSeconds * 1000) / 60)),
        serverPids: [server.pid],
        serverCore: singleCore(context.machine.pinning?.server),
      },
      workload: hmac.workload({ host: `127.0.0.1:${server.port}`, credentials, poolSize: 0 }),
      pin: context.machine.pinning?.generator,
    });
    // One more sample after the load, so the last figures are the run's end state.
    await new Promise((resolve) => setTimeout(resolve, sampleMs + 100));
    return {
      date: context.machine.date,
      commit: context.machine.commit,
      seconds: options.soakSeconds,
      result,
      samples,
      timeline: result.timeline ?? [],
      windowSeconds: SOAK_WINDOW_SECONDS,
    };
  } finally {
    await server.stop();
  }
}

export interface SoakFindings {
  readonly maxNonces: number;
  /**
   * Live nonces allowed by rate × window: the requests accepted in the busiest span of one
   * window plus one upkeep interval of slack (the rate varies on a shared machine, so the
   * average rate over the whole run would understate the busiest minute).
   */
  readonly nonceBound: number;
  readonly diskBytesPerNonce: number;
  readonly memoryBytesPerNonce: number;
  readonly rssStart: number;
  readonly rssQuarter: number;
  readonly rssEnd: number;
  readonly medianIntervalP99: number;
  readonly worstIntervalP99: number;
  /** Intervals left out of the two figures above: the server was starved by other work. */
  readonly starvedIntervals: number;
}

export function soakFindings(soak: SoakRecord): SoakFindings | undefined {
  const first = soak.samples[0];
  const last = soak.samples.at(-1);
  if (first === undefined || last === undefined || soak.timeline.length === 0) return undefined;
  const maxNonces = Math.max(...soak.samples.map((s) => s.nonces));
  const quarter = soak.samples.find((s) => s.t >= last.t / 4) ?? first;
  // Disk: all growth of the files since before the load (the WAL's high-water mark included:
  // it is disk the nonces cost) over the most live nonces. Memory: RSS growth from a tenth of
  // the run (past start-up and JIT warm-up, which have nothing to do with nonces) over the
  // nonces added meanwhile.
  const reference = soak.samples.find((s) => s.t >= last.t / 10 && s.nonces > 0) ?? first;
  const peak = soak.samples.reduce((a, b) => (b.nonces > a.nonces ? b : a), last);
  const maxDisk = Math.max(...soak.samples.map((s) => s.diskBytes));
  const added = peak.nonces - reference.nonces;
  // An interval in which other work took the server's core says nothing about the server's own
  // pauses; it is counted and left out. At full load the server uses all of its core: under
  // three quarters of it, while other processes (or the hypervisor's steal) held at least a
  // quarter of that core, is the shared machine. Without per-core figures (older records), the
  // server under half its core while others held more than one core.
  const starved = (p: SoakRecord['timeline'][number]) =>
    p.serverCpu !== undefined &&
    (p.otherOnServerCore !== undefined
      ? p.serverCpu < 0.75 && p.otherOnServerCore >= 0.25
      : p.otherCpu !== undefined && p.serverCpu < 0.5 && p.otherCpu > 1);
  const own = soak.timeline.filter((p) => !starved(p));
  const p99s = (own.length > 0 ? own : soak.timeline).map((p) => p.p99).sort((a, b) => a - b);
  return {
    maxNonces,
    nonceBound: mostRequestsWithin(soak, soak.windowSeconds + 5),
    diskBytesPerNonce: maxNonces === 0 ? 0 : Math.max(0, maxDisk - first.diskBytes) / maxNonces,
    memoryBytesPerNonce: added <= 0 ? 0 : Math.max(0, peak.rss - reference.rss) / added,
    rssStart: first.rss,
    rssQuarter: quarter.rss,
    rssEnd: last.rss,
    medianIntervalP99: p99s[p99s.length >> 1]!,
    worstIntervalP99: p99s.at(-1)!,
    starvedIntervals: soak.timeline.length - own.length,
  };
}

/**
 * The most requests accepted in any span of `seconds` (whole intervals of the timeline), the
 * warm-up's requests counted as one more interval before the first: their nonces are stored
 * as well.
 */
function mostRequestsWithin(soak: SoakRecord, seconds: number): number {
  const warmup = SOAK_WARMUP_MS / 1000;
  const spans = [
    { start: -warmup, end: 0, requests: soak.result.warmupRequests ?? 0 },
    ...soak.timeline.map((p, i) => {
      const start = i === 0 ? 0 : soak.timeline[i - 1]!.t;
      return { start, end: p.t, requests: p.rps * (p.t - start) };
    }),
  ];
  // What came after the last whole interval: its partial interval, answers after the window
  // closed, and a request in flight on each connection at the stop.
  const counted = spans.reduce((sum, span) => sum + span.requests, 0);
  const total = soak.result.acceptedAtMost ?? soak.result.rps * soak.result.seconds;
  const lastEnd = spans.at(-1)!.end;
  spans.push({ start: lastEnd, end: lastEnd + 1, requests: Math.max(0, total - counted) });
  let most = 0;
  for (let last = 0; last < spans.length; last++) {
    let requests = 0;
    for (let i = last; i >= 0 && spans[last]!.end - spans[i]!.start <= seconds + 0.5; i--) {
      requests += spans[i]!.requests;
    }
    most = Math.max(most, requests);
  }
  return Math.ceil(most);
}

/** The core of a one-core CPU list such as "0", or undefined for none or several. */
function singleCore(list: string | undefined): number | undefined {
  return list !== undefined && /^\d+$/.test(list) ? Number(list) : undefined;
}
