/**
 * `npm run bench -- [options]`. Modes set the defaults; explicit options override them.
 *   (none)     the full run: 3 rounds of 5 s (1 s warm-up) per scenario, writes the docs; a
 *              freshly started server gets 5 s of unmeasured load before its first scenario
 *   --quick    a short full run: 3 rounds of 2 s, writes the docs
 *   --smoke    every scenario once for about a second, for CI; writes nothing
 *   --soak     also the 5-minute run at full load (nonce store size and memory over time)
 *   --soak-only  only the soak, merged into the recorded run (a later run without --soak
 *              keeps the recorded soak, labelled with its date and commit)
 *   --profile-only  only the CPU profiles (--profile), merged into the recorded run
 * Others: --rounds N, --duration S, --warmup S, --server-warmup S, --connections N (50),
 * --only id,id,…, --soak-seconds S, --large-tokens N, --no-write, --profile (CPU profiles
 * and flame graphs of the profiled scenarios), --report (no run: rewrite the docs from
 * bench/results/latest.json), --nice N (run servers and generator at that niceness, to
 * yield to other people's work on a shared machine).
 */
import { parseArgs } from 'node:util';

export type Mode = 'full' | 'quick' | 'smoke';

export interface BenchOptions {
  readonly mode: Mode;
  readonly rounds: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  /**
   * Added to the warm-up of the first scenario on a freshly started server: a server is
   * measured warm, as one that has run for hours is, not while its JIT tiers up and its heap
   * grows (the first scenario measured 5-10 % below the same code measured second).
   */
  readonly serverWarmupMs: number;
  readonly connections: number;
  /** Scenario ids to run (the limit always runs); undefined: all. */
  readonly only: readonly string[] | undefined;
  readonly soak: boolean;
  readonly soakOnly: boolean;
  /** Only the CPU profiles, merged into the recorded run. */
  readonly profileOnly: boolean;
  /** Niceness for every benchmark process; undefined: inherit. */
  readonly nice: number | undefined;
  readonly soakSeconds: number;
  /** Token credentials stored for the "1,000,000 tokens" scenario. */
  readonly largeTokens: number;
  readonly write: boolean;
  readonly profile: boolean;
  /** Only regenerate the docs from the recorded run. */
  readonly report: boolean;
}

const defaults: Record<
  Mode,
  { rounds: number; duration: number; warmup: number; serverWarmup: number }
> = {
  full: { rounds: 3, duration: 5, warmup: 1, serverWarmup: 5 },
  quick: { rounds: 3, duration: 2, warmup: 0.5, serverWarmup: 2 },
  smoke: { rounds: 1, duration: 1, warmup: 0.2, serverWarmup: 0.2 },
};

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      smoke: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      soak: { type: 'boolean', default: false },
      'soak-only': { type: 'boolean', default: false },
      'profile-only': { type: 'boolean', default: false },
      nice: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'server-warmup': { type: 'string' },
      connections: { type: 'string', default: '50' },
      only: { type: 'string' },
      'soak-seconds': { type: 'string' },
      'large-tokens': { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      report: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: npm run bench -- [--quick | --smoke] [--soak] [--rounds N] [--duration S]\n' +
        '  [--warmup S] [--server-warmup S] [--connections N] [--only id,id] [--soak-seconds S]\n' +
        '  [--large-tokens N] [--no-write] [--profile] [--report] [--soak-only] [--profile-only] [--nice N]\n',
    );
    process.exit(0);
  }
  const mode: Mode = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full';
  const base = defaults[mode];
  const number = (text: string | undefined, fallback: number, name: string) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
    return value;
  };
  return {
    mode,
    rounds: Math.round(number(values.rounds, base.rounds, 'rounds')),
    durationMs: number(values.duration, base.duration, 'duration') * 1000,
    warmupMs: number(values.warmup, base.warmup, 'warmup') * 1000,
    serverWarmupMs: number(values['server-warmup'], base.serverWarmup, 'server-warmup') * 1000,
    connections: Math.round(number(values.connections, 50, 'connections')),
    only: values.only?.split(',').map((id) => id.trim()),
    soak: values.soak || values['soak-only'],
    soakOnly: values['soak-only'],
    profileOnly: values['profile-only'],
    nice: values.nice === undefined ? undefined : Math.round(Number(values.nice)),
    soakSeconds: number(values['soak-seconds'], mode === 'smoke' ? 3 : 300, 'soak-seconds'),
    largeTokens: Math.round(
      number(values['large-tokens'], mode === 'smoke' ? 20_000 : 1_000_000, 'large-tokens'),
    ),
    write: mode !== 'smoke' && !values['no-write'],
    profile: values.profile || values['profile-only'],
    report: values.report,
  };
}
