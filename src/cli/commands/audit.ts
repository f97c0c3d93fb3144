/**
 * `latchkey audit`: the audit trail of security events, newest first (docs/security.md "The
 * audit trail"): who (owner, client, admin API, operator), what, when, from which address.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { durationSeconds } from '../duration.ts';
import { storeSettingNames } from '../config/config.ts';
import { auditSource } from './audit-source.ts';
import { withRemote } from '../remote/target.ts';
import { print, printJson, table, time } from '../output.ts';
import { withSettings } from '../settings-options.ts';

interface AuditOptions {
  since?: number;
  client?: string;
  user?: string;
  limit?: number;
  json?: boolean;
}

/** An ISO 8601 time, or a duration back from now: `30m`, `12h`, `7d`. */
function since(value: string): number {
  if (/^\d+[mhd]$/.test(value)) return Date.now() - durationSeconds(value) * 1000;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new InvalidArgumentError('must be an ISO 8601 time or 30m, 12h, 7d');
  return at;
}

function limit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError('must be a whole number, at least 1');
  }
  return Number(value);
}

export function registerAudit(program: Command): void {
  withRemote(withSettings(program.command('audit'), storeSettingNames))
    .description('the audit trail of security events, newest first')
    .option('--since <time>', 'only events from this time (ISO 8601, or 30m, 12h, 7d ago)', since)
    .option('--client <key>', 'only events about this client')
    .option('--user <user>', 'only events about this resource owner (username, id or subject)')
    .option('--limit <n>', 'at most this many events (default 1000)', limit)
    .option('--json', 'print JSON')
    .action(async (options: AuditOptions, command: Command) => {
      const events = await auditSource(command)(options);
      if (options.json === true) {
        printJson(
          events.map((e) => ({
            at: time(e.at),
            event: e.event,
            actor: e.actor,
            owner: e.ownerId,
            client: e.clientKey,
            address: e.address,
            detail: JSON.parse(e.detail) as unknown,
          })),
        );
        return;
      }
      print(
        table(
          ['time', 'event', 'actor', 'owner', 'client', 'address', 'detail'],
          events.map((e) => [
            time(e.at),
            e.event,
            e.actor,
            e.ownerId ?? '-',
            e.clientKey ?? '-',
            e.address ?? '-',
            e.detail === '{}' ? '' : e.detail,
          ]),
        ),
      );
    });
}
