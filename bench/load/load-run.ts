/**
 * The load generator's engine: N keep-alive connections on raw sockets, one request in
 * flight per connection (no pipelining), for a fixed time or until the workload runs dry.
 * Optionally paced to a fixed rate, with latency then measured from each request's
 * scheduled time so a stalled server cannot hide its queue (coordinated omission).
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Histogram } from './histogram.ts';
import { cpuSharesSince, cpuSnapshot } from './process-cpu.ts';
import type { CpuSnapshot } from './process-cpu.ts';
import type { LatencySummary } from './histogram.ts';
import { ResponseParser } from './response-parser.ts';
import type { ParsedResponse } from './response-parser.ts';
import type { Workload } from './workload.ts';

export interface LoadOptions {
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Requests per second across all connections; unpaced when absent. */
  readonly rate?: number | undefined;
  /** Also report throughput and latency per interval of this many ms (for the soak). */
  readonly timelineMs?: number | undefined;
  /** Processes of the server under test, whose CPU use is reported too. */
  readonly serverPids?: readonly number[] | undefined;
  /** The one core the server is pinned to, whose use by other work is reported too. */
  readonly serverCore?: number | undefined;
}

export interface TimelinePoint {
  /** Seconds since measuring began, at the end of the interval. */
  readonly t: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Cores used in the interval by the server, and by everything but server and generator. */
  readonly serverCpu: number | undefined;
  readonly otherCpu: number | undefined;
  /** Of that, the share of the server's own core (when the server is pinned to one). */
  readonly otherOnServerCore?: number | undefined;
}

export interface LoadResult {
  /** Successful requests per second in the measured window. */
  readonly rps: number;
  /** Completed units (requests, or whole flows) per second. */
  readonly unitsPerSecond: number;
  readonly requests: number;
  readonly errors: number;
  readonly errorsByStatus: Record<string, number>;
  readonly socketErrors: number;
  readonly seconds: number;
  readonly latency: LatencySummary;
  /** Share of one core the generator used while measuring (near 1.0: it may be the bottleneck). */
  readonly generatorCpu: number;
  /** Share of one core the server's processes used while measuring (near 1.0: saturated). */
  readonly serverCpu?: number | undefined;
  /** Cores used meanwhile by everything else on the machine (other people's work: noise). */
  readonly otherCpu?: number | undefined;
  /** The workload ran dry before the time was up. */
  readonly exhausted: boolean;
  /** Status line and a short body of the first unexpected response, to diagnose a failure. */
  readonly firstError?: string | undefined;
  readonly timeline?: TimelinePoint[] | undefined;
  /** Successful requests during the warm-up (not measured, but their nonces are stored). */
  readonly warmupRequests?: number | undefined;
  /** Successful requests over the whole run, warm-up and stop included, at most. */
  readonly acceptedAtMost?: number | undefined;
}

export function runLoad(options: LoadOptions, workload: Workload): Promise<LoadResult> {
  return new Promise((resolve) => {
    const histogram = new Histogram();
    const errorsByStatus: Record<string, number> = {};
    let ok = 0;
    let warmupOk = 0;
    let lateOk = 0;
    let units = 0;
    let errors = 0;
    let socketErrors = 0;
    let firstError: string | undefined;
    let stopped = false;
    let exhausted = false;
    let idle = 0;
    let lastDone = 0;
    const started = performance.now();
    const measureFrom = started + options.warmupMs;
    const measureUntil = measureFrom + options.durationMs;
    const interval = options.rate === undefined ? 0 : 1000 / options.rate;
    let nextSlot = started;
    let rescheduled = false;
    const pids = options.serverPids ?? [];
    const snapshot = () => cpuSnapshot(pids, options.serverCore);
    const usage = (since: CpuSnapshot) => cpuSharesSince(since, pids, options.serverCore);
    let measuring = snapshot();
    const sockets: (Socket | undefined)[] = [];
    const timeline: TimelinePoint[] = [];
    let slice = new Histogram();
    let sliceOk = 0;

    const open = (index: number) => {
      const parser = new ResponseParser();
      let sentAt = 0;
      const socket = connect({ host: options.host, port: options.port, noDelay: true });
      sockets[index] = socket;
      const send = () => {
        if (stopped) return;
        const request = workload.next(index);
        if (request === undefined) {
          exhausted = true;
          if (++idle === options.connections) finish();
          return;
        }
        if (interval === 0) {
          sentAt = performance.now();
          socket.write(request);
          return;
        }
        // The measured window starts on schedule: a backlog left by the warm-up (JIT, the
        // first GCs of either process) is not the steady state the p99 describes.
        if (!rescheduled && performance.now() >= measureFrom) {
          rescheduled = true;
          nextSlot = Math.max(nextSlot, measureFrom);
        }
        const slot = nextSlot;
        nextSlot += interval;
        sentAt = slot;
        const wait = slot - performance.now();
        if (wait > 1) setTimeout(() => stopped || socket.write(request), wait);
        else socket.write(request);
      };
      const handle = (response: ParsedResponse) => {
        const now = performance.now();
        const verdict = workload.onResponse(index, response);
        if (now >= measureFrom && now <= measureUntil) {
          if (sentAt >= measureFrom) {
            histogram.record((now - sentAt) * 1000);
            slice.record((now - sentAt) * 1000);
          }
          lastDone = now;
          if (verdict.ok) {
            ok++;
            sliceOk++;
          } else {
            errors++;
            errorsByStatus[response.status] = (errorsByStatus[response.status] ?? 0) + 1;
            firstError ??= `${response.head.split('\r\n')[0]} ${response.body.subarray(0, 160).toString()}`;
          }
          if (verdict.unitDone) units++;
        } else if (now < measureFrom && verdict.ok) {
          warmupOk++;
        } else if (verdict.ok) {
          lateOk++; // answered after the window closed, before the sockets did
        }
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        let responses: ParsedResponse[];
        try {
          responses = parser.push(chunk);
        } catch {
          socket.destroy(new Error('unparseable response'));
          return;
        }
        for (const response of responses) handle(response);
        if (responses.length === 0 || stopped) return;
        if (responses[responses.length - 1]!.close) socket.end();
        else send();
      });
      socket.on('error', () => {
        if (!stopped) socketErrors++;
      });
      socket.on('close', () => {
        if (stopped || idle === options.connections) return;
        workload.reset?.(index);
        // A server may close a keep-alive connection; open another and carry on.
        setTimeout(() => open(index), 5);
      });
    };

    const finish = () => {
      if (stopped) return;
      stopped = true;
      const cpu = usage(measuring);
      for (const socket of sockets) socket?.destroy();
      const end = exhausted ? Math.min(lastDone, measureUntil) : measureUntil;
      const seconds = Math.max((end - measureFrom) / 1000, 1e-3);
      resolve({
        rps: ok / seconds,
        unitsPerSecond: units / seconds,
        requests: ok + errors,
        errors: errors + socketErrors,
        errorsByStatus,
        socketErrors,
        seconds,
        latency: histogram.summary(),
        generatorCpu: cpu.generator,
        serverCpu: cpu.server,
        otherCpu: cpu.other,
        exhausted,
        firstError,
        timeline: options.timelineMs === undefined ? undefined : timeline,
        warmupRequests: warmupOk,
        // Every request the server may have accepted: all answered, and one unanswered per
        // connection at the stop.
        acceptedAtMost: warmupOk + ok + lateOk + options.connections,
      });
    };

    if (options.timelineMs !== undefined) {
      const every = options.timelineMs;
      setTimeout(() => {
        slice = new Histogram();
        sliceOk = 0;
        let since = snapshot();
        const tick = setInterval(() => {
          if (stopped) return clearInterval(tick);
          const latency = slice.summary();
          const cpu = usage(since);
          since = snapshot();
          const t = (performance.now() - measureFrom) / 1000;
          timeline.push({
            t,
            rps: sliceOk / (every / 1000),
            ...pick(latency),
            serverCpu: cpu.server,
            otherCpu: cpu.other,
            otherOnServerCore: cpu.otherOnServerCore,
          });
          slice = new Histogram();
          sliceOk = 0;
        }, every);
      }, options.warmupMs);
    }

    for (let i = 0; i < options.connections; i++) open(i);
    setTimeout(() => {
      measuring = snapshot();
    }, options.warmupMs);
    setTimeout(finish, options.warmupMs + options.durationMs);
  });
}

function pick(latency: LatencySummary): { p50: number; p99: number; max: number } {
  return { p50: latency.p50, p99: latency.p99, max: latency.max };
}
