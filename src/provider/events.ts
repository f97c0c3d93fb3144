/**
 * What the provider announces on `provider.events` (docs/events.md "Internal events"): every
 * event name with its one payload, so an emit with a misspelt name or a wrong payload, or a
 * listener expecting another payload, fails to compile. The emitter is node:events' own,
 * typed by this map: subscribers call `on`, `off` and `once` as on any EventEmitter.
 */
import { EventEmitter } from 'node:events';
import type { IdentitySource, NewAuditEvent } from '../store/types.ts';

/** Event name → payload. Every name here has an entry in audit.ts (`auditedEvents`). */
export interface ProviderEventPayloads {
  /** An operator issued a token credential (`latchkey tokens issue`). */
  'token.issued': {
    readonly ownerId: string;
    readonly clientKey: string;
    readonly scope: string;
  };
  /** One token credential was revoked; `by: 'client'` when the client ended it itself. */
  'token.revoked': {
    readonly token: string;
    readonly ownerId: string;
    readonly clientKey: string;
    readonly by?: 'client' | undefined;
  };
  /** Session extension: `token` (the old one, now gone) was renewed by its client. */
  'token.renewed': {
    readonly token: string;
    readonly ownerId: string;
    readonly clientKey: string;
    readonly by: 'client';
  };
  /** The owner revoked every token of one client (Connected apps). */
  'grant.revoked': { readonly ownerId: string; readonly clientKey: string; readonly count: number };
  /** §2.2: an owner allowed an authorization request. */
  'authorization.granted': {
    readonly ownerId: string;
    readonly clientKey: string;
    readonly scope?: string | undefined;
    readonly lifetime?: number | null | undefined;
  };
  /** §2.2 without a page: a live grant or a remembered consent covered the request. */
  'authorization.automatic': {
    readonly ownerId: string;
    readonly clientKey: string;
    readonly reason: 'grant' | 'remembered';
    readonly scope: string;
  };
  /** An owner allowed a client that remembers consent: its requests within `scope` are not asked again. */
  'consent.remembered': {
    readonly ownerId: string;
    readonly clientKey: string;
    readonly scope: string;
  };
  /** An owner stopped a remembered consent (Connected apps): the next request asks again. */
  'consent.forgotten': { readonly ownerId: string; readonly clientKey: string };
  /** §2.2: a request denied; no owner when the login app rejected the sign-in. */
  'authorization.denied': {
    readonly ownerId?: string | undefined;
    readonly clientKey?: string | undefined;
  };
  'client.created': { readonly clientKey: string; readonly developerId: string | null };
  'client.updated': { readonly clientKey: string; readonly fields: readonly string[] };
  /** A new secret; the previous one is valid until `overlapEndsAt` (null: none was kept). */
  'client.secret-rotated': { readonly clientKey: string; readonly overlapEndsAt: string | null };
  /** A new public key; the previous one is valid until `overlapEndsAt` (null: there was none). */
  'client.public-key-replaced': {
    readonly clientKey: string;
    readonly overlapEndsAt: string | null;
  };
  /** The overlap of a rotation ended (recorded by upkeep, once across instances). */
  'client.overlap-ended': {
    readonly clientKey: string;
    readonly credential: 'secret' | 'public-key';
    readonly endedAt: string;
  };
  /** An operator or the developer ended a client's overlaps before their time. */
  'client.overlap-cut': { readonly clientKey: string; readonly count: number };
  'client.disabled': { readonly clientKey: string };
  'client.enabled': { readonly clientKey: string };
  'client.deleted': { readonly clientKey: string };
  'owner.signed-in': { readonly ownerId: string; readonly source: IdentitySource };
  /** A refused sign-in; `ownerId` only for a wrong password of a known account. */
  'owner.sign-in-refused': {
    readonly kind: string;
    readonly reason: string;
    readonly ownerId?: string | undefined;
  };
  'owner.sign-in-throttled': { readonly limit: number; readonly retryAfterSeconds: number };
  'owner.created': { readonly ownerId: string; readonly source: IdentitySource };
  'owner.password-set': { readonly ownerId: string };
  'owner.removed': { readonly ownerId: string; readonly source: IdentitySource };
  /** One batch of `latchkey import` was written. */
  'credentials.imported': { readonly records: number; readonly written: number };
  'admin.login-accepted': { readonly subject: string };
  'admin.login-rejected': Readonly<Record<never, never>>;
  'admin-token.created': { readonly name: string; readonly role: string };
  'admin-token.revoked': { readonly name: string };
  'admin.console-signed-in': { readonly name: string };
  'admin.console-signed-out': { readonly name: string };
  'secrets.resealed': { readonly count: number };
  'webhook.created': { readonly webhookId: string };
  'webhook.removed': { readonly webhookId: string };
  /** The events a hook receives were changed (`fields`: what changed). */
  'webhook.updated': { readonly webhookId: string; readonly fields: readonly string[] };
  'webhook.enabled': { readonly webhookId: string };
  'webhook.disabled': { readonly webhookId: string };
  /** A new current key was added to the key file (the admin API's keys rotate). */
  'secrets.key-rotated': { readonly previous: string; readonly current: string };
  /** Deliveries were queued for an event (wakes the instance's webhook worker). */
  'webhook.enqueued': { readonly id: string; readonly type: string; readonly count: number };
  /** One delivery attempt ended: delivered, or to be tried again (or given up). */
  'webhook.delivered': WebhookAttempt;
  'webhook.failed': WebhookAttempt;
  /** The webhook queue could not be read or written. */
  'error.webhooks': unknown;
  /** An event was stored in the audit trail (the stored row). */
  audit: NewAuditEvent;
  /** An audit event could not be stored. */
  'error.audit': unknown;
  /** A round of periodic upkeep failed. */
  'error.maintenance': unknown;
}

export type ProviderEventName = keyof ProviderEventPayloads;

/** What the webhook worker says of one delivery attempt. */
export interface WebhookAttempt {
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly type: string;
  /** The receiver's status, or null when none came (`error` says why). */
  readonly status: number | null;
  readonly error: string | undefined;
  /** False when the claim had run out and another instance holds the delivery. */
  readonly recorded: boolean;
}

/** node:events' map shape: each name's listener arguments. */
type ListenerArguments = {
  [Name in ProviderEventName]: [payload: ProviderEventPayloads[Name]];
};

export type ProviderEvents = EventEmitter<ListenerArguments>;

export function createProviderEvents(): ProviderEvents {
  return new EventEmitter<ListenerArguments>();
}
