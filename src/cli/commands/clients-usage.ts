/**
 * `latchkey clients usage KEY`: a client's use per UTC day, as its developer sees it in the
 * portal: verified requests, failures by oauth_problem, distinct owners, last use.
 */
import type { Command } from 'commander';
import { USAGE_RETENTION_DAYS } from '../../provider/index.ts';
import type { UsageDay } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import { UsageError } from '../errors.ts';
import { print, printJson, table, time } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { storeSettingNames } from '../config/config.ts';
import { localOnlyCommand } from '../remote/target.ts';

const DEFAULT_DAYS = 30;

function parseDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > USAGE_RETENTION_DAYS) {
    throw new UsageError(
      `--days takes a whole number from 1 to ${USAGE_RETENTION_DAYS} (the days kept).`,
    );
  }
  return days;
}

/** Failures as `problem count` pairs, the most frequent first; a dash for none. */
export function failureSummary(failures: Readonly<Record<string, number>>): string {
  const pairs = Object.entries(failures).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  return pairs.length === 0
    ? '-'
    : pairs.map(([problem, count]) => `${problem} ${count}`).join(', ');
}

function printUsage(key: string, days: readonly UsageDay[]): void {
  const total = (pick: (day: UsageDay) => number) => days.reduce((sum, day) => sum + pick(day), 0);
  const failed = (day: UsageDay) => Object.values(day.failures).reduce((a, b) => a + b, 0);
  print(
    table(
      ['DAY', 'REQUESTS', 'FAILURES', 'OWNERS', 'LAST USE', 'FAILURES BY PROBLEM'],
      days.map((day) => [
        day.day,
        String(day.requests),
        String(failed(day)),
        String(day.owners),
        time(day.lastUsedAt),
        failureSummary(day.failures),
      ]),
    ),
  );
  print();
  print(
    `Client ${key}, last ${days.length} days (UTC): ${total((d) => d.requests)} requests, ` +
      `${total(failed)} failures.`,
  );
}

export function registerClientUsage(clients: Command): void {
  localOnlyCommand(withSettings(clients.command('usage'), storeSettingNames))
    .description(
      'show a client’s use per day: requests, failures by oauth_problem, owners, last use',
    )
    .argument('<key>', 'client key')
    .option('--days <n>', `how many days, today last (1 to ${USAGE_RETENTION_DAYS})`, parseDays)
    .option('--json', 'print JSON')
    .action(async (key: string, options: { days?: number; json?: boolean }, command: Command) => {
      const days = await withProvider(configOf(command), async (provider) => {
        await provider.clients.get(key); // an unknown key is an error, not 30 empty days
        return provider.usage.days(key, options.days ?? DEFAULT_DAYS);
      });
      if (options.json === true) printJson({ client: key, days });
      else printUsage(key, days);
    });
}
