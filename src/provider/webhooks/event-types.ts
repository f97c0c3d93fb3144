/**
 * The public webhook event types (docs/webhooks.md "Events"): which provider event
 * (`provider.events`, docs/events.md) each comes from, and the facts its `data` carries. Only
 * the facts named here leave the server; none of them is a secret (a token's identifier is
 * public in every request it signs, RFC 5849 §3.5.1; its secret never is).
 */
export interface WebhookEventType {
  /** The provider event it is sent for. */
  readonly from: string;
  /** The facts of the provider event copied into `data`, when present. */
  readonly data: readonly string[];
}

export const webhookEventTypes = {
  'grant.created': {
    from: 'authorization.granted',
    data: ['ownerId', 'clientKey', 'scope', 'lifetime'],
  },
  'grant.denied': { from: 'authorization.denied', data: ['ownerId', 'clientKey'] },
  'grant.revoked': { from: 'grant.revoked', data: ['ownerId', 'clientKey', 'count'] },
  'token.created': { from: 'token.issued', data: ['ownerId', 'clientKey', 'scope'] },
  'token.revoked': { from: 'token.revoked', data: ['token', 'ownerId', 'clientKey', 'by'] },
  'client.created': { from: 'client.created', data: ['clientKey', 'developerId'] },
  'client.updated': { from: 'client.updated', data: ['clientKey', 'fields'] },
  'client.secret_rotated': {
    from: 'client.secret-rotated',
    data: ['clientKey', 'overlapEndsAt'],
  },
  'client.public_key_replaced': {
    from: 'client.public-key-replaced',
    data: ['clientKey', 'overlapEndsAt'],
  },
  'client.overlap_ended': {
    from: 'client.overlap-ended',
    data: ['clientKey', 'credential', 'endedAt'],
  },
  'client.disabled': { from: 'client.disabled', data: ['clientKey'] },
  'client.enabled': { from: 'client.enabled', data: ['clientKey'] },
  'client.deleted': { from: 'client.deleted', data: ['clientKey'] },
  'owner.created': { from: 'owner.created', data: ['ownerId', 'source'] },
  'owner.deleted': { from: 'owner.removed', data: ['ownerId', 'source'] },
} as const satisfies Record<string, WebhookEventType>;

export type WebhookEventName = keyof typeof webhookEventTypes;

/** A hook subscribed to `*` receives every type, present and future. */
export const EVERY_EVENT = '*';

export const webhookEventNames = Object.keys(webhookEventTypes) as WebhookEventName[];

export function isWebhookEventName(name: string): name is WebhookEventName {
  return Object.hasOwn(webhookEventTypes, name);
}
