/**
 * The two per-request metrics, `latchkey_http_requests_total` and
 * `latchkey_http_request_duration_seconds`, tallied in plain numbers as each request
 * finishes and handed to prom-client only when /metrics is read. prom-client's own `inc` and
 * `observe` hash the label object and check every label on each call, about 3 % of a verified
 * request's instructions (docs/benchmarks.md). The exposition is prom-client's: the counter is
 * a prom-client Counter brought up to date by its `collect`, and the histogram is read by the
 * registry through `get()` in the shape prom-client's own Histogram gives.
 */
import { Counter } from 'prom-client';
import type { Metric, Registry } from 'prom-client';

/** Upper bounds of the latency buckets, in seconds (docs/events.md: 1 ms to 5 s). */
const DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

const OUTCOMES = ['success', 'redirect', 'rejected', 'unavailable', 'error'] as const;

/**
 * The outcome's place in OUTCOMES: 2xx success, 3xx redirect, 4xx rejected, 503 unavailable
 * (fail closed), other 5xx error.
 */
function outcomeIndex(status: number): number {
  if (status < 300) return 0;
  if (status < 400) return 1;
  if (status < 500) return 2;
  return status === 503 ? 3 : 4;
}

/** What one endpoint has answered since start. */
interface EndpointTally {
  /** Requests by outcome, in the order of OUTCOMES. */
  readonly outcomes: Float64Array;
  /** The outcomes the counter has been given so far: its collect() adds the difference. */
  readonly reported: Float64Array;
  /** Requests per bucket (not cumulative); the last slot is past the largest bound. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

export interface RequestMetrics {
  /** Counts one answered request: its endpoint (route pattern), status and time in seconds. */
  record(endpoint: string, status: number, seconds: number): void;
}

export function registerRequestMetrics(registers: Registry[]): RequestMetrics {
  const tallies = new Map<string, EndpointTally>();
  const tallyOf = (endpoint: string): EndpointTally => {
    let tally = tallies.get(endpoint);
    if (tally === undefined) {
      tally = {
        outcomes: new Float64Array(OUTCOMES.length),
        reported: new Float64Array(OUTCOMES.length),
        buckets: new Float64Array(DURATION_BUCKETS.length + 1),
        sum: 0,
        count: 0,
      };
      tallies.set(endpoint, tally);
    }
    return tally;
  };

  new Counter({
    name: 'latchkey_http_requests_total',
    help: 'HTTP requests answered, by endpoint (route pattern) and outcome.',
    labelNames: ['endpoint', 'outcome'] as const,
    registers,
    collect() {
      for (const [endpoint, { outcomes, reported }] of tallies) {
        for (let i = 0; i < OUTCOMES.length; i++) {
          const added = outcomes[i]! - reported[i]!;
          if (added > 0) this.inc({ endpoint, outcome: OUTCOMES[i]! }, added);
          reported[i] = outcomes[i]!;
        }
      }
    },
  });

  const histogram = new DurationHistogram(tallies);
  for (const registry of registers) registry.registerMetric(histogram as unknown as Metric);

  return {
    record(endpoint, status, seconds) {
      const tally = tallyOf(endpoint);
      tally.outcomes[outcomeIndex(status)]!++;
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
      tally.buckets[bucket]!++;
      tally.sum += seconds;
      tally.count++;
    },
  };
}

/** One histogram as Registry.metrics() reads it (prom-client's Histogram.get() shape). */
interface HistogramReading {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: { metricName: string; labels: Record<string, string | number>; value: number }[];
}

/** `latchkey_http_request_duration_seconds`, as the registry reads a prom-client Histogram. */
class DurationHistogram {
  readonly name = 'latchkey_http_request_duration_seconds';
  readonly help = 'Time to answer a request, by endpoint.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #tallies: Map<string, EndpointTally>;

  constructor(tallies: Map<string, EndpointTally>) {
    this.#tallies = tallies;
  }

  async get(): Promise<HistogramReading> {
    const values: HistogramReading['values'] = [];
    const bucketName = `${this.name}_bucket`;
    for (const [endpoint, tally] of this.#tallies) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += tally.buckets[i]!;
        values.push({ metricName: bucketName, labels: { endpoint, le: bound }, value: cumulative });
      });
      values.push(
        { metricName: bucketName, labels: { endpoint, le: '+Inf' }, value: tally.count },
        { metricName: `${this.name}_sum`, labels: { endpoint }, value: tally.sum },
        { metricName: `${this.name}_count`, labels: { endpoint }, value: tally.count },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }

  /** Registry.resetMetrics(): start counting again. */
  reset(): void {
    for (const tally of this.#tallies.values()) {
      tally.buckets.fill(0);
      tally.sum = 0;
      tally.count = 0;
    }
  }
}
