/**
 * The console's clients: the list with search, status and pages; one client's page (its
 * settings, tokens, usage and recent refusals); and the actions, each behind a confirmation
 * page: disable, enable, rotate the secret (with a choice of overlap), end a rotation's overlap,
 * revoke a token. The actions go through the same provider operations as the admin API, so they
 * land in the audit trail alike.
 */
import type { FastifyInstance } from 'fastify';
import { NotFoundError, type AdminAction, type Provider } from '../../provider/index.ts';
import { tokenStatus } from '../../provider/index.ts';
import { field } from '../form.ts';
import { formatTime } from '../format.ts';
import {
  OVERLAP_CHOICES,
  overlapSecondsOf,
  previousSecretUntil,
  rotationForm,
  runningOverlaps,
} from '../overlap-choice.ts';
import { appUsage } from '../usage-chart.ts';
import { CONSOLE, consoleRoute, type ConsoleContext } from './context.ts';

/** Refusals shown on a client's page, newest first. */
const RECENT_REFUSALS = 20;
/** Audit events read to find them: the client's most recent ones. */
const REFUSALS_SCANNED = 500;
/** Tokens shown on a client's page, newest first. */
const TOKENS_SHOWN = 100;

/** The confirmable actions on a client, their role action and their words. */
const actions = {
  disable: { action: 'clients.disable', verb: 'Disable', danger: true },
  enable: { action: 'clients.enable', verb: 'Enable', danger: false },
  rotate: { action: 'clients.rotate', verb: 'Rotate the secret of', danger: true },
  // Ending an overlap undoes part of a rotation, so it takes the role that may rotate.
  'end-overlap': { action: 'clients.rotate', verb: 'End the overlap of', danger: true },
  revoke: { action: 'tokens.revoke', verb: 'Revoke a token of', danger: true },
  delete: { action: 'clients.delete', verb: 'Delete', danger: true },
} as const satisfies Record<string, { action: AdminAction; verb: string; danger: boolean }>;

type ActionName = keyof typeof actions;
const isAction = (name: string): name is ActionName => Object.hasOwn(actions, name);

const clientPath = (key: string) => `${CONSOLE}/clients/${encodeURIComponent(key)}`;
const keyOf = (params: unknown) => field(params, 'key');

async function clientPage(provider: Provider, key: string) {
  const client = await provider.clients.get(key);
  const at = provider.now();
  const tokens = (await provider.admin.tokenCredentials({ clientKey: key, limit: 500 })).items
    .sort((a, b) => b.issuedAt - a.issuedAt)
    .slice(0, TOKENS_SHOWN)
    .map((token) => ({
      token: token.token,
      ownerId: token.ownerId,
      scope: token.scope,
      issued: formatTime(token.issuedAt),
      lastUsed: token.lastUsedAt === null ? 'Not used yet' : formatTime(token.lastUsedAt),
      status: tokenStatus(token, at),
    }));
  const refusals = (await provider.audit.list({ clientKey: key, limit: REFUSALS_SCANNED }))
    .filter((event) => /denied|refused|rejected|throttled/.test(event.event))
    .slice(0, RECENT_REFUSALS)
    .map((event) => ({ at: formatTime(event.at), event: event.event, detail: event.detail }));
  return {
    client,
    tokens,
    refusals,
    overlaps: await runningOverlaps(provider, key),
    usage: await appUsage(provider, key),
  };
}

export function clientRoutes(fastify: FastifyInstance, web: ConsoleContext): void {
  const { provider, render } = web;

  fastify.get(`${CONSOLE}/clients`, consoleRoute('clients', 'read'), async (request, reply) => {
    const search = field(request.query, 'q').trim().slice(0, 200);
    const status = field(request.query, 'status');
    const cursor = field(request.query, 'cursor');
    const page = await provider.admin.clients({
      search: search === '' ? undefined : search,
      disabled: status === 'disabled' ? true : status === 'enabled' ? false : undefined,
      cursor: cursor === '' ? undefined : cursor,
    });
    const more = new URLSearchParams({ q: search, status, cursor: page.next ?? '' });
    return render(request, reply, 'clients', {
      title: 'Clients',
      deleted: field(request.query, 'deleted') === '1',
      search,
      status: status === 'disabled' || status === 'enabled' ? status : '',
      clients: page.items,
      next: page.next === undefined ? null : `${CONSOLE}/clients?${more.toString()}`,
      pathOf: clientPath,
    });
  });

  fastify.get(
    `${CONSOLE}/clients/:key`,
    consoleRoute('one client', 'read', ['key']),
    async (request, reply) => {
      const key = keyOf(request.params);
      return render(request, reply, 'client', {
        title: 'Client',
        ...(await clientPage(provider, key)),
        path: clientPath(key),
        done: field(request.query, 'done'),
        wide: true,
      });
    },
  );

  fastify.get(
    `${CONSOLE}/clients/:key/confirm`,
    consoleRoute('confirm an action on a client', 'read', ['key']),
    async (request, reply) => {
      const key = keyOf(request.params);
      const name = field(request.query, 'action');
      if (!isAction(name)) throw new NotFoundError('No such action.');
      const chosen = actions[name];
      provider.admin.authorize(request.consoleSession!.admin, chosen.action);
      const client = await provider.clients.get(key);
      const token = name === 'revoke' ? field(request.query, 'token') : '';
      if (name === 'revoke') {
        const found = await provider.admin.tokenCredential(token);
        if (found.clientKey !== key) throw new NotFoundError('No such token for this client.');
      }
      return render(request, reply, 'confirm', {
        title: `${chosen.verb} ${client.name}?`,
        client,
        name,
        verb: chosen.verb,
        danger: chosen.danger,
        token,
        overlaps: OVERLAP_CHOICES,
        path: clientPath(key),
      });
    },
  );

  clientActionRoutes(fastify, web);
}

/** The actions, each posted from its confirmation page. */
function clientActionRoutes(fastify: FastifyInstance, web: ConsoleContext): void {
  const { provider, render } = web;

  for (const name of ['disable', 'enable'] as const) {
    fastify.post(
      `${CONSOLE}/clients/:key/${name}`,
      consoleRoute(`${name} a client`, actions[name].action, ['key']),
      async (request, reply) => {
        const key = keyOf(request.params);
        await provider.clients.setDisabled(key, name === 'disable');
        return reply.redirect(`${clientPath(key)}?done=${name}d`, 303);
      },
    );
  }

  const rotate = consoleRoute('rotate a client’s secret', actions.rotate.action, ['key']);
  fastify.post(
    `${CONSOLE}/clients/:key/rotate`,
    { ...rotate, schema: { ...rotate.schema, ...rotationForm } },
    async (request, reply) => {
      const key = keyOf(request.params);
      const overlapSeconds = overlapSecondsOf(request.body);
      const client = await provider.clients.rotateSecret(key, { overlapSeconds });
      return render(request, reply, 'secret', {
        title: 'New secret',
        client,
        previousUntil: overlapSeconds > 0 ? await previousSecretUntil(provider, key) : null,
        path: clientPath(key),
      });
    },
  );

  fastify.post(
    `${CONSOLE}/clients/:key/end-overlap`,
    consoleRoute('end the overlap of a client’s rotation', actions['end-overlap'].action, ['key']),
    async (request, reply) => {
      const key = keyOf(request.params);
      await provider.clients.get(key); // an unknown client: 404, as for the other actions
      await provider.clients.endOverlaps(key);
      return reply.redirect(`${clientPath(key)}?done=overlap-ended`, 303);
    },
  );

  fastify.post(
    `${CONSOLE}/clients/:key/delete`,
    consoleRoute('delete a client', actions.delete.action, ['key']),
    async (request, reply) => {
      await provider.clients.remove(keyOf(request.params));
      return reply.redirect(`${CONSOLE}/clients?deleted=1`, 303);
    },
  );

  fastify.post(
    `${CONSOLE}/clients/:key/revoke`,
    consoleRoute('revoke a token of a client', actions.revoke.action, ['key']),
    async (request, reply) => {
      const key = keyOf(request.params);
      const found = await provider.admin.tokenCredential(field(request.body, 'token'));
      if (found.clientKey !== key) throw new NotFoundError('No such token for this client.');
      await provider.tokens.revoke(found.token);
      return reply.redirect(`${clientPath(key)}?done=revoked`, 303);
    },
  );
}
