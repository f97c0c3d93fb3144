/** The shape of a recorded run (bench/results/latest.json) and the medians taken from it. */
import type { LoadResult, TimelinePoint } from './load/load-run.ts';
import type { Machine } from './machine.ts';
import type { BenchOptions } from './options.ts';
import type { ServerId } from './scenarios.ts';

export interface RoundResult extends LoadResult {
  readonly round: number;
  /** This round's req/s over the limit's req/s in the same round. */
  readonly ratio: number | undefined;
  /** Requests per CPU-second of the server: what one fully available core would serve. */
  readonly perCore: number | undefined;
  /** perCore over the limit's perCore: the ratio with other load on the core taken out. */
  readonly cpuRatio: number | undefined;
  /** The pace, for a paced scenario. */
  readonly rate?: number | undefined;
}

export interface ScenarioSummary {
  readonly rps: number;
  readonly unitsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly requests: number;
  readonly ratio: number | undefined;
  readonly perCore: number | undefined;
  readonly cpuRatio: number | undefined;
  readonly generatorCpu: number;
  readonly serverCpu: number | undefined;
  readonly otherCpu: number | undefined;
  readonly rate: number | undefined;
}

export interface ScenarioRecord {
  readonly id: string;
  readonly title: string;
  readonly server: ServerId;
  readonly unit: 'requests' | 'flows';
  status: 'ok' | 'unavailable' | 'failed';
  note: string | undefined;
  readonly rounds: RoundResult[];
  summary: ScenarioSummary | undefined;
}

export interface StartupRecord {
  readonly server: ServerId;
  readonly tokens: number;
  /** Milliseconds from spawning `latchkey serve` to its first answer, one per round. */
  readonly ms: number[];
}

export interface SoakSample {
  readonly t: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly nonces: number;
  /** Database, WAL and shared-memory files together. */
  readonly diskBytes: number;
  /** The WAL alone (recorded since the harness split it out). */
  readonly walBytes?: number;
}

export interface SoakRecord {
  /** When and on which commit the soak ran (it may come from an earlier run than the rest). */
  readonly date: string;
  readonly commit: string | undefined;
  readonly seconds: number;
  readonly result: LoadResult;
  readonly samples: SoakSample[];
  readonly timeline: TimelinePoint[];
  readonly windowSeconds: number;
}

export interface ProfileEntry {
  readonly name: string;
  readonly where: string;
  readonly selfPercent: number;
}

export interface ProfileRecord {
  readonly scenario: string;
  /** When it was profiled (it may come from a later --profile-only run than the tables). */
  readonly date?: string;
  /** Self time by function, largest first. */
  readonly top: ProfileEntry[];
  /** Self time by area of the code (our layers, packages, Node, the engine). */
  readonly areas: ProfileEntry[];
  /** Its flame graph, relative to docs/ (written from the .cpuprofile when there is one). */
  readonly flameGraph?: string;
}

export interface RunRecord {
  readonly version: 1;
  readonly machine: Machine;
  readonly options: BenchOptions;
  readonly scenarios: ScenarioRecord[];
  readonly startup: StartupRecord[];
  soak: SoakRecord | undefined;
  /** HEAD when the run ended; differs from machine.commit when sources changed mid-run. */
  commitAtEnd: string | undefined;
  profiles: ProfileRecord[] | undefined;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(rounds: readonly RoundResult[]): ScenarioSummary | undefined {
  if (rounds.length === 0) return undefined;
  const of = (pick: (r: RoundResult) => number | undefined) => {
    const values = rounds.map(pick).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  return {
    rps: of((r) => r.rps)!,
    unitsPerSecond: of((r) => r.unitsPerSecond)!,
    p50: of((r) => r.latency.p50)!,
    p99: of((r) => r.latency.p99)!,
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    requests: rounds.reduce((sum, r) => sum + r.requests, 0),
    ratio: of((r) => r.ratio),
    perCore: of((r) => r.perCore),
    cpuRatio: of((r) => r.cpuRatio),
    generatorCpu: of((r) => r.generatorCpu)!,
    serverCpu: of((r) => r.serverCpu),
    otherCpu: of((r) => r.otherCpu),
    rate: of((r) => r.rate),
  };
}
