/**
 * The audit trail (docs/security.md "The audit trail"): each security event the provider
 * announces on `provider.events` is stored (who, what, when, from which address; never a
 * secret) and announced again as `audit`, which the HTTP layer writes as one log line. The
 * address comes from the request being served: the pages, the admin API and the client's
 * token and invalidation requests run `within` their context (AsyncLocalStorage); an event
 * outside any request is the operator's (the CLI).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventEmitter } from 'node:events';
import type { AuditActor, AuditEvent, NewAuditEvent, Store } from '../store/types.ts';
import type { ProviderEventName, ProviderEventPayloads, ProviderEvents } from './events.ts';

export interface AuditContext {
  /** The client's address, as the trusted proxy (if any) gave it. */
  readonly address: string;
  /** Set on the admin API: the login app acts, not a resource owner. */
  readonly actor?: AuditActor | undefined;
  /** Set on the admin API: the name of the admin token that called (kept in `detail.admin`). */
  readonly admin?: string | undefined;
}

/** What of one event the trail keeps. */
export interface AuditMapping<Payload> {
  /** When the event happens, as docs/security.md's table says it (generated from here). */
  readonly when: string;
  readonly ownerId?: (facts: Payload) => string | null | undefined;
  readonly clientKey?: (facts: Payload) => string | null | undefined;
  /** The actor when a request is being served (outside one: the operator). */
  readonly actor: AuditActor;
  /** The facts kept in `detail`; none of them may be a secret. */
  readonly detail?: ReadonlyArray<keyof Payload & string>;
}

/** Every event of `provider.events`: its mapping, or null when it is not audited on purpose. */
export type AuditTable = {
  readonly [Name in ProviderEventName]: AuditMapping<ProviderEventPayloads[Name]> | null;
};

type Facts = Readonly<Record<string, unknown>>;

const owner = (facts: { readonly ownerId?: string | undefined }) => facts.ownerId;
const client = (facts: { readonly clientKey?: string | undefined }) => facts.clientKey;

/** Every event of `provider.events` and what of it is kept (docs/security.md "The audit trail"). */
export const auditedEvents: AuditTable = {
  'owner.signed-in': {
    when: 'an owner signed in on the pages, from any identity source',
    ownerId: owner,
    actor: 'owner',
    detail: ['source'],
  },
  'owner.sign-in-refused': {
    when: 'a sign-in was refused: a wrong password (`reason: "password"` with the id of the account the username named, or `reason: "unknown-username"` when it named none; never the name as typed), a refused login challenge or verifier, or the login app\'s rejection',
    ownerId: owner,
    actor: 'owner',
    detail: ['kind', 'reason'],
  },
  // Once per address and window: the refusals after it are not recorded one by one.
  'owner.sign-in-throttled': {
    when: 'an address went past the per-address sign-in cap: once per window, not once per refused request',
    actor: 'owner',
    detail: ['limit', 'retryAfterSeconds'],
  },
  'authorization.granted': {
    when: 'an owner allowed an authorization request (§2.2)',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
    detail: ['scope', 'lifetime'],
  },
  'authorization.automatic': {
    when: 'an authorization request was approved without the consent page: a live grant covered it (`/oauth/authenticate`, `reason: "grant"`) or a remembered consent did (`reason: "remembered"`)',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
    detail: ['reason', 'scope'],
  },
  'consent.remembered': {
    when: 'an owner allowed a client that remembers consent (`rememberConsent: same-scope`): requests within the scope are approved without asking',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
    detail: ['scope'],
  },
  'consent.forgotten': {
    when: 'an owner stopped a remembered consent on Connected apps: the next request asks again',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
  },
  'authorization.denied': {
    when: 'an authorization request was denied: by the signed-in owner, or by the login app rejecting the sign-in (no owner then)',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
  },
  'token.issued': {
    when: 'an operator issued a token credential (`latchkey tokens issue`)',
    ownerId: owner,
    clientKey: client,
    actor: 'operator',
    detail: ['scope'],
  },
  'token.revoked': {
    when: 'one token credential was revoked (`latchkey tokens revoke`, `provider.tokens.revoke`, one token on Connected apps), or ended by its client (`invalidate_token`, actor `client`)',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
  },
  // Recorded as issue and revocation are: a renewal ends one token and starts another
  // (docs/decisions.md "Which events are audited").
  'token.renewed': {
    when: 'a client renewed a token credential with its session handle (session extension; actor `client`)',
    ownerId: owner,
    clientKey: client,
    actor: 'client',
  },
  'grant.revoked': {
    when: 'an owner revoked every token of one client (Connected apps)',
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
    detail: ['count'],
  },
  'client.created': {
    when: 'a client was registered; the owner is the developer who registered it, if any',
    clientKey: client,
    ownerId: (facts) => facts.developerId,
    actor: 'owner',
  },
  'client.updated': {
    when: 'what a client registered was changed; the detail names the fields changed',
    clientKey: client,
    actor: 'owner',
    detail: ['fields'],
  },
  'client.secret-rotated': {
    when: "a client's secret was replaced; the detail says until when the previous one is valid (null: not at all)",
    clientKey: client,
    actor: 'owner',
    detail: ['overlapEndsAt'],
  },
  'client.public-key-replaced': {
    when: "a client's public key was replaced; the detail says until when the previous one is valid",
    clientKey: client,
    actor: 'owner',
    detail: ['overlapEndsAt'],
  },
  'client.overlap-ended': {
    when: "the overlap of a rotation ended: the client's previous secret or key is refused from then (recorded by upkeep)",
    clientKey: client,
    actor: 'operator',
    detail: ['credential', 'endedAt'],
  },
  'client.overlap-cut': {
    when: "a client's overlaps were ended before their time",
    clientKey: client,
    actor: 'owner',
    detail: ['count'],
  },
  'client.disabled': { when: 'a client was disabled', clientKey: client, actor: 'owner' },
  'client.enabled': { when: 'a client was enabled again', clientKey: client, actor: 'owner' },
  'client.deleted': { when: 'a client was removed', clientKey: client, actor: 'owner' },
  'owner.created': {
    when: 'an operator created a local account (`latchkey users add`)',
    ownerId: owner,
    actor: 'operator',
    detail: ['source'],
  },
  'owner.password-set': {
    when: "an operator set an account's password (`latchkey users passwd`)",
    ownerId: owner,
    actor: 'operator',
  },
  'owner.removed': {
    when: 'an operator removed an owner and every token it granted (`latchkey users remove`)',
    ownerId: owner,
    actor: 'operator',
    detail: ['source'],
  },
  'credentials.imported': {
    when: 'one batch of `latchkey import` was written; the detail holds the counts',
    actor: 'operator',
    detail: ['records', 'written'],
  },
  'admin.login-accepted': {
    when: 'the login app accepted a login challenge on the admin API',
    actor: 'admin',
    detail: ['subject'],
  },
  'admin.login-rejected': {
    when: 'the login app rejected a login challenge on the admin API',
    actor: 'admin',
  },
  // A hook is an address the server sends events to: who added or removed one is recorded.
  'webhook.created': {
    when: 'an operator added a webhook (`latchkey webhooks add`)',
    actor: 'operator',
    detail: ['webhookId'],
  },
  'webhook.removed': {
    when: 'an operator removed a webhook (`latchkey webhooks remove`)',
    actor: 'operator',
    detail: ['webhookId'],
  },
  'webhook.updated': {
    when: 'an operator changed the events a webhook receives (the admin API)',
    actor: 'operator',
    detail: ['webhookId', 'fields'],
  },
  'webhook.enabled': {
    when: 'an operator let a disabled webhook receive again (`latchkey webhooks enable`)',
    actor: 'operator',
    detail: ['webhookId'],
  },
  'webhook.disabled': {
    when: 'an operator stopped sending to a webhook (`latchkey webhooks disable`)',
    actor: 'operator',
    detail: ['webhookId'],
  },
  // Deliveries are the hooks' own log (`latchkey webhooks deliveries`), not security events.
  'webhook.enqueued': null,
  'webhook.delivered': null,
  'webhook.failed': null,
  // The queue failing is the operator's concern, logged by serve, as upkeep failing is.
  'error.webhooks': null,
  'admin-token.created': {
    when: 'an operator created an admin API token (`latchkey admin-tokens add`); never its secret',
    actor: 'operator',
    detail: ['name', 'role'],
  },
  'admin-token.revoked': {
    when: 'an admin API token was revoked (`latchkey admin-tokens revoke`)',
    actor: 'operator',
    detail: ['name'],
  },
  // Who held the console, and when: its actions carry the token's name as the API's do.
  'admin.console-signed-in': {
    when: 'an operator signed in to the console with an admin token (never the token)',
    actor: 'admin',
    detail: ['name'],
  },
  'admin.console-signed-out': {
    when: 'an operator signed out of the console',
    actor: 'admin',
    detail: ['name'],
  },
  'secrets.resealed': {
    when: 'stored secrets were sealed again under the current key (`latchkey keys reseal`, the admin API)',
    actor: 'operator',
    detail: ['count'],
  },
  'secrets.key-rotated': {
    when: 'a new current sealing key was added to the key file (`latchkey keys rotate`)',
    actor: 'operator',
    detail: ['previous', 'current'],
  },
  // The trail's own announcement of a stored event: recording it would record itself.
  audit: null,
  // The store just failed to keep an event: it would fail to keep this one too.
  'error.audit': null,
  // Upkeep failing is the operator's concern, not a security event: it is counted
  // (`latchkey_maintenance_failures_total`) and logged (docs/events.md).
  'error.maintenance': null,
};

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function createAuditTrail(store: Store, events: ProviderEvents, now: () => number) {
  const context = new AsyncLocalStorage<AuditContext>();

  function record(name: string, mapping: AuditMapping<Facts>, facts: Facts): void {
    const served = context.getStore();
    const detail: Record<string, unknown> = {};
    for (const field of mapping.detail ?? []) {
      if (facts[field] !== undefined) detail[field] = facts[field];
    }
    if (served?.admin !== undefined) detail.admin = served.admin;
    const entry: NewAuditEvent = {
      at: now(),
      event: name,
      // A client ending its own token acts itself, over the flow endpoints.
      actor:
        facts.by === 'client'
          ? 'client'
          : served === undefined
            ? 'operator'
            : (served.actor ?? mapping.actor),
      ownerId: text(mapping.ownerId?.(facts)),
      clientKey: text(mapping.clientKey?.(facts)),
      address: served?.address ?? null,
      detail: JSON.stringify(detail),
    };
    store.audit.append(entry).then(
      () => events.emit('audit', entry),
      (error: unknown) => events.emit('error.audit', error),
    );
  }

  // The table is typed per event; one listener shape serves them all.
  const listeners: EventEmitter = events;
  for (const [name, mapping] of Object.entries(auditedEvents)) {
    if (mapping === null) continue;
    listeners.on(name, (facts: Facts = {}) => record(name, mapping as AuditMapping<Facts>, facts));
  }

  return {
    /** Runs `work` (a request being served) with its address, for the events it causes. */
    within<T>(served: AuditContext, work: () => T): T {
      return context.run(served, work);
    },
    /** Newest first (`latchkey audit`). */
    list(filter: {
      readonly since?: number | undefined;
      readonly clientKey?: string | undefined;
      readonly ownerId?: string | undefined;
      readonly limit?: number | undefined;
    }): Promise<AuditEvent[]> {
      return store.audit.list({ ...filter, limit: filter.limit ?? 1000 });
    },
  };
}

export type AuditTrail = ReturnType<typeof createAuditTrail>;
