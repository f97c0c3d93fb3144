/** One line of progress per scenario and round, as the run goes. */
import type { RoundResult } from './results.ts';
import type { Scenario } from './scenarios.ts';

export function describeRound(
  round: number,
  rounds: number,
  scenario: Scenario,
  r: RoundResult,
): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const main =
    scenario.unit === 'flows'
      ? `${n(r.unitsPerSecond)} flows/s (${n(r.rps)} req/s)`
      : `${n(r.rps)} req/s`;
  const perCpu = r.cpuRatio === undefined ? '' : ` (per server CPU ${r.cpuRatio.toFixed(2)})`;
  const ratio = r.ratio === undefined ? '' : `  ratio ${r.ratio.toFixed(2)}${perCpu}`;
  const pace = r.rate === undefined ? '' : `  paced at ${n(r.rate)}/s`;
  const dry = r.exhausted ? '  (pool ran dry: shorter window)' : '';
  return (
    `round ${round}/${rounds}  ${scenario.id.padEnd(13)} ${main.padStart(14)}  p50 ${r.latency.p50} ms  ` +
    `p99 ${r.latency.p99} ms  errors ${r.errors}${ratio}${pace}  cpu: server ${percent(r.serverCpu)}, generator ${percent(r.generatorCpu)}, others ${percent(r.otherCpu)}${dry}`
  );
}

function percent(share: number | undefined): string {
  return share === undefined ? '?' : `${Math.round(share * 100)} %`;
}
