/**
 * `latchkey clients usage KEY`: a client's use per UTC day, as its developer sees it in the
 * portal: verified requests, failures by oauth_problem, distinct owners, last use. Through a
 * server's admin API with `--server` (GET /admin/clients/{key}/usage), printed the same way.
 */
import type { Command } from 'commander';
import { DEFAULT_USAGE_DAYS, USAGE_RETENTION_DAYS } from '../../provider/index.ts';
import type { UsageDay } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { UsageError } from '../errors.ts';
import { print, printJson, table, time } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { storeSettingNames } from '../config/config.ts';
import { remoteOf, withRemote } from '../remote/target.ts';

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

/** The admin API's answer (src/http/admin/client-usage.ts): times as ISO 8601. */
interface UsageJson {
  days: (Omit<UsageDay, 'lastUsedAt'> & { lastUsedAt: string | null })[];
}

async function remoteDays(api: AdminApi, key: string, days: number): Promise<UsageDay[]> {
  const answer = await api.call<UsageJson>(
    'GET',
    `/admin/clients/${encodeURIComponent(key)}/usage?days=${days}`,
  );
  return answer.days.map((day) => ({
    ...day,
    lastUsedAt: day.lastUsedAt === null ? null : Date.parse(day.lastUsedAt),
  }));
}

export function registerClientUsage(clients: Command): void {
  withRemote(withSettings(clients.command('usage'), storeSettingNames))
    .description(
      'show a client’s use per day: requests, failures by oauth_problem, owners, last use',
    )
    .argument('<key>', 'client key')
    .option(
      '--days <n>',
      `how many days, today last (1 to ${USAGE_RETENTION_DAYS}; default ${DEFAULT_USAGE_DAYS})`,
      parseDays,
    )
    .option('--json', 'print JSON')
    .action(async (key: string, options: { days?: number; json?: boolean }, command: Command) => {
      const count = options.days ?? DEFAULT_USAGE_DAYS;
      const api = remoteOf(command);
      const days =
        api !== undefined
          ? await remoteDays(api, key, count)
          : await withProvider(configOf(command), async (provider) => {
              await provider.clients.get(key); // an unknown key is an error, not 30 empty days
              return provider.usage.days(key, count);
            });
      if (options.json === true) printJson({ client: key, days });
      else printUsage(key, days);
    });
}
