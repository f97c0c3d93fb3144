/**
 * Where `latchkey audit` reads the audit trail: the provider on the configured database, or
 * a server's admin API (`GET /admin/audit`, `--server`), giving the same events.
 */
import type { Command } from 'commander';
import type { AuditEvent } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface AuditFilter {
  readonly since?: number | undefined;
  readonly client?: string | undefined;
  /** A username, id or external subject. */
  readonly user?: string | undefined;
  readonly limit?: number | undefined;
}

export type AuditSource = (filter: AuditFilter) => Promise<Omit<AuditEvent, 'id'>[]>;

export function auditSource(command: Command): AuditSource {
  const api = remoteOf(command);
  if (api !== undefined) return remoteAudit(api);
  return (filter) =>
    withProvider(configOf(command), async (p) => {
      const ownerId =
        filter.user === undefined ? undefined : (await p.owners.resolve(filter.user)).id;
      return p.audit.list({
        since: filter.since,
        clientKey: filter.client,
        ownerId,
        limit: filter.limit,
      });
    });
}

type EventJson = Omit<AuditEvent, 'id' | 'at' | 'detail'> & { at: string; detail: unknown };

function remoteAudit(api: AdminApi): AuditSource {
  return async (filter) => {
    const answer = await api.call<{ items: EventJson[] }>('GET', '/admin/audit', {
      query: {
        since: filter.since === undefined ? undefined : new Date(filter.since).toISOString(),
        client: filter.client,
        owner: filter.user,
        limit: filter.limit === undefined ? undefined : String(filter.limit),
      },
    });
    // The detail is stored as JSON text; the API sends it parsed.
    return answer.items.map((e) => ({
      at: Date.parse(e.at),
      event: e.event,
      actor: e.actor,
      ownerId: e.ownerId,
      clientKey: e.clientKey,
      address: e.address,
      detail: JSON.stringify(e.detail),
    }));
  };
}
