/** Differences against the previously recorded run, printed after each run. */
import type { RunRecord } from '../results.ts';

export function compareRuns(previous: RunRecord, current: RunRecord): string[] {
  const lines = [
    `Compared with the previous record (${previous.machine.date}, ${previous.options.mode}):`,
  ];
  for (const scenario of current.scenarios) {
    const now = scenario.summary;
    const before = previous.scenarios.find((s) => s.id === scenario.id)?.summary;
    if (now === undefined || before === undefined) continue;
    const value = scenario.unit === 'flows' ? now.unitsPerSecond : now.rps;
    const old = scenario.unit === 'flows' ? before.unitsPerSecond : before.rps;
    const change = old === 0 ? 0 : ((value - old) / old) * 100;
    const ratio =
      now.ratio === undefined || before.ratio === undefined
        ? ''
        : `  ratio ${now.ratio.toFixed(2)} (${signed(now.ratio - before.ratio, 2)})`;
    lines.push(
      `  ${scenario.id.padEnd(14)} ${Math.round(value).toLocaleString('en-US').padStart(8)}/s ` +
        `(${signed(change, 1)} %)${ratio}  p99 ${now.p99} ms (was ${before.p99})`,
    );
  }
  if (lines.length === 1) lines.push('  no scenario in common');
  return lines;
}

function signed(value: number, digits: number): string {
  const text = value.toFixed(digits);
  return value >= 0 ? `+${text}` : text;
}
