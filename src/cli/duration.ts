/**
 * Durations on the command line: a whole number with a unit, `90s`, `30m`, `12h`, `7d`
 * (the admin tokens' lifetime, the audit's `--since`, a rotation's `--overlap`).
 */
import { InvalidArgumentError } from 'commander';

const SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** The duration in seconds; `0` alone is accepted where `zero` allows it. */
export function durationSeconds(value: string, options: { readonly zero?: boolean } = {}): number {
  if (options.zero === true && value === '0') return 0;
  const match = /^(\d{1,6})([smhd])$/.exec(value);
  if (match === null || Number(match[1]) < 1) {
    throw new InvalidArgumentError(
      `must be a duration such as 90m, 12h or 30d${options.zero === true ? ', or 0' : ''}`,
    );
  }
  return Number(match[1]) * SECONDS[match[2] as keyof typeof SECONDS];
}
