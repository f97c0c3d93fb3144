/**
 * The usage section of a developer's app page: the last 30 days as a bar chart drawn on the
 * server (SVG, no script: the pages work without JavaScript) and a table of the days with use.
 */
import type { Provider, UsageDay } from '../provider/index.ts';
import { formatTime } from './format.ts';

/** Days the app page shows. */
export const USAGE_CHART_DAYS = 30;
const WIDTH = 600;
const HEIGHT = 140;
/** Room below the bars for the day labels, and to the left for the scale. */
const BOTTOM = 20;
const LEFT = 40;

export interface UsageBar {
  readonly x: number;
  readonly width: number;
  /** The requests bar (verified), from `y` down to the baseline. */
  readonly y: number;
  readonly height: number;
  /** The failures bar, stacked above the requests bar. */
  readonly failuresY: number;
  readonly failuresHeight: number;
  /** The bar's tooltip (an SVG <title>). */
  readonly label: string;
}

export interface UsageRow {
  readonly day: string;
  readonly requests: number;
  readonly failures: number;
  readonly problems: string;
  readonly owners: number;
  readonly lastUse: string;
}

export interface UsageSection {
  readonly width: number;
  readonly height: number;
  readonly baseline: number;
  readonly left: number;
  /** The scale's top value (requests + failures of the busiest day, at least 1). */
  readonly top: number;
  readonly bars: readonly UsageBar[];
  readonly first: string;
  readonly last: string;
  /** Days with any use, newest first. */
  readonly rows: readonly UsageRow[];
  readonly summary: string;
}

const failuresOf = (day: UsageDay) => Object.values(day.failures).reduce((a, b) => a + b, 0);

export function usageSection(days: readonly UsageDay[]): UsageSection {
  const baseline = HEIGHT - BOTTOM;
  const top = Math.max(1, ...days.map((day) => day.requests + failuresOf(day)));
  const slot = (WIDTH - LEFT) / Math.max(1, days.length);
  const scale = (value: number) => (value / top) * (baseline - 4);
  const bars = days.map((day, index) => {
    const failures = failuresOf(day);
    const height = scale(day.requests);
    const failuresHeight = scale(failures);
    return {
      x: round(LEFT + index * slot + slot * 0.15),
      width: round(slot * 0.7),
      y: round(baseline - height),
      height: round(height),
      failuresY: round(baseline - height - failuresHeight),
      failuresHeight: round(failuresHeight),
      label: `${day.day}: ${day.requests} requests, ${failures} failures, ${day.owners} owners`,
    };
  });
  const used = days.filter((day) => day.requests > 0 || failuresOf(day) > 0);
  const total = (pick: (day: UsageDay) => number) => days.reduce((sum, d) => sum + pick(d), 0);
  return {
    width: WIDTH,
    height: HEIGHT,
    baseline,
    left: LEFT,
    top,
    bars,
    first: days[0]?.day ?? '',
    last: days.at(-1)?.day ?? '',
    rows: used.reverse().map((day) => ({
      day: day.day,
      requests: day.requests,
      failures: failuresOf(day),
      problems: Object.entries(day.failures)
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
        .map(([problem, count]) => `${problem} ${count}`)
        .join(', '),
      owners: day.owners,
      lastUse: day.lastUsedAt === null ? '' : formatTime(day.lastUsedAt),
    })),
    summary:
      `${total((d) => d.requests)} verified requests and ${total(failuresOf)} failures ` +
      `in the last ${days.length} days (UTC).`,
  };
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The section for `clientKey`'s page. */
export async function appUsage(provider: Provider, clientKey: string): Promise<UsageSection> {
  return usageSection(await provider.usage.days(clientKey, USAGE_CHART_DAYS));
}
