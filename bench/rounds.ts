/**
 * Runs the scenarios: seeds the databases once, then for each round starts each server on
 * the server core, drives its scenarios from the generator core, and stops it. The limit
 * runs first in every round, and every figure is also taken as a ratio to it.
 */
import type { Machine } from './machine.ts';
import { runGenerator, runScript } from './processes.ts';
import type { BenchOptions } from './options.ts';
import { summarize } from './results.ts';
import type { RoundResult, ScenarioRecord, StartupRecord } from './results.ts';
import { scenarios, servers } from './scenarios.ts';
import type { Fault, Scenario, ServerDef, ServerId } from './scenarios.ts';
import { leanCredentials } from './seed/lean-credentials.ts';
import type { SeededCredentials } from './seed/seed-latchkey.ts';
import { startGroup } from './server-group.ts';
import type { ServerGroup } from './server-group.ts';
import { measureCliStartup } from './startup.ts';
import { describeRound } from './round-line.ts';

const POOL_RATE_GUESS = 12_000;
/** Other processes' CPU (cores) above which a measurement is taken again, and how often. */
const NOISY_OTHERS = 0.15;
const NOISY_RETRIES = 2;
/** How far short of its pace a paced run may fall before it is taken again (retakeReason). */
const PACE_SHORTFALL = 0.03;

export interface RunContext {
  readonly options: BenchOptions;
  readonly machine: Machine;
  /** A scratch directory for databases and profiles. */
  readonly dir: string;
  readonly log: (line: string) => void;
}

export interface RoundsOutcome {
  readonly records: ScenarioRecord[];
  readonly startup: StartupRecord[];
  /** Credentials of each seeded Latchkey database (for the soak and the profile). */
  readonly seeded: Map<ServerId, SeededCredentials>;
}

export async function runRounds(context: RunContext): Promise<RoundsOutcome> {
  const { options, log } = context;
  const selected = scenarios.filter(
    (s) => s.id === 'limit' || options.only === undefined || options.only.includes(s.id),
  );
  const records = new Map<string, ScenarioRecord>(
    selected.map((s) => [
      s.id,
      {
        id: s.id,
        title: s.title,
        server: s.server,
        unit: s.unit ?? 'requests',
        status: 'ok',
        note: undefined,
        rounds: [],
        summary: undefined,
      },
    ]),
  );
  const active = servers.filter((def) => selected.some((s) => s.server === def.id));
  for (const def of active) {
    const reason = def.unavailable();
    if (reason === undefined) continue;
    for (const s of selected.filter((x) => x.server === def.id)) {
      const record = records.get(s.id)!;
      record.status = 'unavailable';
      record.note = reason;
    }
  }
  const runnable = active.filter((def) => def.unavailable() === undefined);

  const lean = leanCredentials();
  const seeded = await seedDatabases(context, runnable);

  const startup = new Map<ServerId, StartupRecord>();
  const pin = context.machine.pinning;
  const settings = { dir: context.dir, pin: pin?.server, leanEnv: lean.env };
  for (let round = 1; round <= options.rounds; round++) {
    const roundRps = new Map<string, number>();
    for (const def of runnable) {
      const credentials = seeded.get(def.id);
      if (def.startup === true && credentials !== undefined) {
        const entry = startup.get(def.id) ?? {
          server: def.id,
          tokens: credentials.tokens,
          ms: [],
        };
        try {
          const ms = await measureCliStartup(`${context.dir}/${def.id}.db`, pin?.server);
          entry.ms.push(Math.round(ms));
          startup.set(def.id, entry);
        } catch (error) {
          log(`round ${round} start-up of ${def.id}: FAILED ${firstLine(error)}`);
        }
      }
      let group: ServerGroup;
      try {
        group = await startGroup(def, settings);
      } catch (error) {
        failAll(selected, records, def.id, error);
        continue;
      }
      if (def.id === 'bare-http') {
        // For scale: what starting Node and a bare server costs on this core.
        const entry = startup.get(def.id) ?? { server: def.id, tokens: 0, ms: [] };
        entry.ms.push(Math.round(group.main.startupMs));
        startup.set(def.id, entry);
      }
      // The servers of the group that have been driven since they started.
      const warmed = new Set<number>();
      for (const scenario of selected.filter((s) => s.server === def.id)) {
        const record = records.get(scenario.id)!;
        const server = scenario.target === 'upstream' ? group.upstream! : group.main;
        // The first scenario to drive a freshly started server warms it up first (options.ts).
        // Per server, not per group: the gateway's upstream is measured alone first, and the
        // gateway itself was then measured cold, at half its warm rate.
        const fresh = !warmed.has(server.pid);
        warmed.add(server.pid);
        const warmupMs = options.warmupMs + (fresh ? options.serverWarmupMs : 0);
        let fault: Fault | undefined;
        try {
          // Started before the measurement (and its warm-up), stopped after (bench/faults/).
          fault = await scenario.fault?.({
            host: `127.0.0.1:${server.port}`,
            credentials: credentials ?? lean.credentials,
            poolSize: 0,
          });
          const rate = paceFor(scenario, roundRps);
          const measure = () =>
            runGenerator({
              load: {
                host: '127.0.0.1',
                port: server.port,
                connections: options.connections,
                warmupMs,
                durationMs: options.durationMs,
                rate,
                serverPids: scenario.target === 'upstream' ? [server.pid] : group.pids,
              },
              workload: scenario.workload({
                host: `127.0.0.1:${server.port}`,
                credentials: credentials ?? lean.credentials,
                poolSize: poolSize(record.rounds.at(-1)?.rps, warmupMs, options),
              }),
              pin: pin?.generator,
            });
          let result = await measure();
          const faultNote = fault?.check();
          if (faultNote !== undefined) throw new Error(`the fault did not hold: ${faultNote}`);
          if (fault !== undefined && result.requests === 0) {
            throw new Error('no request was answered during the fault');
          }
          // A figure that says more about the machine than about the server is taken again.
          for (let retry = 1; retry <= NOISY_RETRIES; retry++) {
            const why = retakeReason(result, rate, options);
            if (why === undefined) break;
            log(
              `round ${round} ${scenario.id}: ${why}, measuring again (${retry}/${NOISY_RETRIES})`,
            );
            result = await measure();
          }
          roundRps.set(scenario.id, result.rps);
          const perCore = perServerCore(result.rps, result.serverCpu);
          if (perCore !== undefined) roundRps.set(`${scenario.id}/core`, perCore);
          const limit = roundRps.get('limit');
          const limitPerCore = roundRps.get('limit/core');
          const flows = scenario.unit === 'flows';
          const entry: RoundResult = {
            ...result,
            round,
            ratio: limit === undefined || flows ? undefined : result.rps / limit,
            perCore,
            cpuRatio:
              limitPerCore === undefined || perCore === undefined || flows
                ? undefined
                : perCore / limitPerCore,
            rate,
          };
          record.rounds.push(entry);
          log(describeRound(round, options.rounds, scenario, entry));
          if (result.requests > 0 && result.errors >= result.requests) {
            record.status = 'failed';
            record.note = `every request failed: ${result.firstError ?? 'socket errors'}`;
          }
        } catch (error) {
          record.status = 'failed';
          record.note = firstLine(error);
          log(`round ${round} ${scenario.id}: FAILED ${record.note}`);
        } finally {
          fault?.stop();
        }
      }
      await group.stop();
    }
  }
  for (const record of records.values()) record.summary = summarize(record.rounds);
  return { records: [...records.values()], startup: [...startup.values()], seeded };
}

/** Seeds each Latchkey database of these servers (in parallel; not measured). */
export async function seedDatabases(
  context: RunContext,
  defs: readonly ServerDef[],
): Promise<Map<ServerId, SeededCredentials>> {
  const seeded = new Map<ServerId, SeededCredentials>();
  await Promise.all(
    defs
      .filter((def) => def.tokens !== undefined)
      .map(async (def) => {
        const tokens = def.tokens === 'large' ? context.options.largeTokens : def.tokens!;
        context.log(`seeding ${def.id} (${tokens.toLocaleString('en-US')} token credentials)`);
        const credentials = await runScript<SeededCredentials>([
          'bench/seed/seed-latchkey.ts',
          '--database',
          `${context.dir}/${def.id}.db`,
          '--tokens',
          String(tokens),
        ]);
        seeded.set(def.id, credentials);
      }),
  );
  return seeded;
}

/**
 * Why a measurement should be taken again, if it should: other work on the shared machine took
 * part of a core, or a paced run fell short of its pace. The pace is a fraction of a maximum
 * measured moments before; a server that cannot keep up with it now means the machine slowed
 * in between, and the p99 then measures a queue growing without end (805 ms for bare
 * node:http once), not the latency at that fraction of the maximum.
 */
function retakeReason(
  result: { readonly otherCpu?: number | undefined; readonly rps: number },
  rate: number | undefined,
  options: BenchOptions,
): string | undefined {
  if (options.mode === 'smoke') return undefined;
  const others = result.otherCpu ?? 0;
  if (others > NOISY_OTHERS) return `other work used ${Math.round(others * 100)} % of a core`;
  if (rate !== undefined && result.rps < rate * (1 - PACE_SHORTFALL)) {
    return `reached ${Math.round(result.rps)} req/s of its ${rate}/s pace (the machine slowed)`;
  }
  return undefined;
}

function paceFor(scenario: Scenario, roundRps: Map<string, number>): number | undefined {
  if (scenario.pace === undefined) return undefined;
  const of = roundRps.get(scenario.pace.of);
  return of === undefined ? undefined : Math.max(1, Math.round(of * scenario.pace.fraction));
}

/** Enough pre-signed requests for the round: the last round's rate plus 50 %, or a guess. */
function poolSize(
  previousRps: number | undefined,
  warmupMs: number,
  options: BenchOptions,
): number {
  // The smoke run too: a smaller guess left its one RSA round empty (0 req/s, pool dry).
  const rate = previousRps === undefined ? POOL_RATE_GUESS : previousRps * 1.5;
  return Math.max(500, Math.ceil((rate * (warmupMs + options.durationMs)) / 1000));
}

function failAll(
  selected: readonly Scenario[],
  records: Map<string, ScenarioRecord>,
  server: ServerId,
  error: unknown,
) {
  for (const s of selected.filter((x) => x.server === server)) {
    const record = records.get(s.id)!;
    record.status = 'failed';
    record.note = `the server did not start: ${firstLine(error)}`;
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, 3)
    .join(' / ')
    .slice(0, 300);
}

/** Requests per second of server CPU: throughput with other load on the core taken out. */
function perServerCore(rps: number, serverCpu: number | undefined): number | undefined {
  return serverCpu === undefined || serverCpu < 0.05 ? undefined : rps / serverCpu;
}
