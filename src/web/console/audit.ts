/**
 * The console's audit trail: events newest first, filtered by event name, client, owner and a
 * time range (since, until), in pages. The provider filters by time, client and owner; the
 * event name and the end of the range are applied here over what it returns.
 */
import type { FastifyInstance } from 'fastify';
import { InputError } from '../../provider/index.ts';
import { field } from '../form.ts';
import { formatTime } from '../format.ts';
import { CONSOLE, consoleRoute, type ConsoleContext } from './context.ts';

/** Events on one page. */
const PER_PAGE = 50;
/** Events read for one query, at most: the newest, as `latchkey audit` reads them. */
const MAX_SCANNED = 1000;

/** A time from a filter field: a date or date and time (UTC unless it names a zone). */
function timeOf(name: string, value: string): number | undefined {
  if (value === '') return undefined;
  const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(value) || !/T/.test(value) ? value : `${value}Z`;
  const at = /^\d{4}-\d{2}-\d{2}(T[0-9:.]{2,12}([zZ]|[+-]\d\d:?\d\d)?)?$/.test(value)
    ? Date.parse(zoned)
    : Number.NaN;
  if (!Number.isFinite(at)) {
    throw new InputError(
      name,
      `${name} is a date, 2026-11-28, or a date and time, 2026-11-28T08:30.`,
    );
  }
  return at;
}

function pageNumber(value: string): number {
  if (value === '') return 1;
  if (!/^[1-9][0-9]{0,2}$/.test(value)) throw new InputError('page', 'page is 1 to 999.');
  return Number(value);
}

export function auditRoutes(fastify: FastifyInstance, web: ConsoleContext): void {
  const { provider, render } = web;

  fastify.get(
    `${CONSOLE}/audit`,
    consoleRoute('the audit trail, filtered', 'read'),
    async (request, reply) => {
      const query = request.query;
      const filters = {
        event: field(query, 'event').trim().slice(0, 100),
        client: field(query, 'client').trim().slice(0, 200),
        owner: field(query, 'owner').trim().slice(0, 200),
        since: field(query, 'since').trim().slice(0, 40),
        until: field(query, 'until').trim().slice(0, 40),
      };
      const page = pageNumber(field(query, 'page'));
      const since = timeOf('since', filters.since);
      const until = timeOf('until', filters.until);
      const ownerId =
        filters.owner === '' ? undefined : (await provider.owners.resolve(filters.owner)).id;
      const events = (
        await provider.audit.list({
          since,
          clientKey: filters.client === '' ? undefined : filters.client,
          ownerId,
          limit: MAX_SCANNED,
        })
      ).filter(
        (event) =>
          (filters.event === '' || event.event.startsWith(filters.event)) &&
          (until === undefined || event.at <= until),
      );
      const shown = events.slice((page - 1) * PER_PAGE, page * PER_PAGE).map((event) => ({
        at: formatTime(event.at),
        event: event.event,
        actor: event.actor,
        ownerId: event.ownerId ?? '',
        clientKey: event.clientKey ?? '',
        address: event.address ?? '',
        detail: event.detail,
      }));
      const linkTo = (to: number) =>
        `${CONSOLE}/audit?${new URLSearchParams({ ...filters, page: String(to) }).toString()}`;
      return render(request, reply, 'audit', {
        title: 'Audit trail',
        filters,
        events: shown,
        previous: page > 1 ? linkTo(page - 1) : null,
        next: events.length > page * PER_PAGE ? linkTo(page + 1) : null,
        wide: true,
      });
    },
  );
}
