/**
 * The audit trail (docs/security.md "The audit trail"): each security event the provider
 * announces on `provider.events` is stored (who, what, when, from which address; never a
 * secret) and announced again as `audit`, which the HTTP layer writes as one log line. The
 * address comes from the request being served: the pages and the admin API run each request
 * `within` its context (AsyncLocalStorage); an event outside any request is the operator's
 * (the CLI).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventEmitter } from 'node:events';
import type { AuditActor, AuditEvent, NewAuditEvent, Store } from '../store/types.ts';

export interface AuditContext {
  /** The client's address, as the trusted proxy (if any) gave it. */
  readonly address: string;
  /** Set on the admin API: the login app acts, not a resource owner. */
  readonly actor?: AuditActor | undefined;
  /** Set on the admin API: the name of the admin token that called (kept in `detail.admin`). */
  readonly admin?: string | undefined;
}

type Facts = Record<string, unknown>;

interface Mapping {
  readonly ownerId?: (facts: Facts) => unknown;
  readonly clientKey?: (facts: Facts) => unknown;
  /** The actor when a request is being served (outside one: the operator). */
  readonly actor: AuditActor;
  /** The facts kept in `detail`; none of them may be a secret. */
  readonly detail?: readonly string[];
}

const owner = (facts: Facts) => facts.ownerId;
const client = (facts: Facts) => facts.clientKey;

/** Every audited event of `provider.events` and what of it is kept. */
export const auditedEvents: Readonly<Record<string, Mapping>> = {
  'owner.signed-in': { ownerId: owner, actor: 'owner', detail: ['source'] },
  'owner.sign-in-refused': { ownerId: owner, actor: 'owner', detail: ['kind', 'reason'] },
  // Once per address and window: the refusals after it are not recorded one by one.
  'owner.sign-in-throttled': { actor: 'owner', detail: ['limit', 'retryAfterSeconds'] },
  'authorization.granted': {
    ownerId: owner,
    clientKey: client,
    actor: 'owner',
    detail: ['scope', 'lifetime'],
  },
  'authorization.denied': { ownerId: owner, clientKey: client, actor: 'owner' },
  'token.issued': { ownerId: owner, clientKey: client, actor: 'operator', detail: ['scope'] },
  'token.revoked': { ownerId: owner, clientKey: client, actor: 'owner' },
  'grant.revoked': { ownerId: owner, clientKey: client, actor: 'owner', detail: ['count'] },
  'client.created': { clientKey: client, ownerId: (f) => f.developerId, actor: 'owner' },
  'client.updated': { clientKey: client, actor: 'owner', detail: ['fields'] },
  'client.secret-rotated': { clientKey: client, actor: 'owner' },
  'client.disabled': { clientKey: client, actor: 'owner' },
  'client.enabled': { clientKey: client, actor: 'owner' },
  'client.deleted': { clientKey: client, actor: 'owner' },
  'owner.created': { ownerId: owner, actor: 'operator', detail: ['source'] },
  'owner.password-set': { ownerId: owner, actor: 'operator' },
  'owner.removed': { ownerId: owner, actor: 'operator', detail: ['source'] },
  'credentials.imported': { actor: 'operator', detail: ['records', 'written'] },
  'admin.login-accepted': { actor: 'admin', detail: ['subject'] },
  'admin.login-rejected': { actor: 'admin' },
  'admin-token.created': { actor: 'operator', detail: ['name', 'role'] },
  'admin-token.revoked': { actor: 'operator', detail: ['name'] },
  'secrets.resealed': { actor: 'operator', detail: ['count'] },
};

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function createAuditTrail(store: Store, events: EventEmitter, now: () => number) {
  const context = new AsyncLocalStorage<AuditContext>();

  function record(name: string, mapping: Mapping, facts: Facts): void {
    const served = context.getStore();
    const detail: Facts = {};
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

  for (const [name, mapping] of Object.entries(auditedEvents)) {
    events.on(name, (facts: Facts = {}) => record(name, mapping, facts));
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
