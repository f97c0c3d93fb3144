/**
 * What the admin API shows of each record, and their JSON schemas: never a secret (a client's
 * secret is shown once, when made or rotated), never a password hash or a session handle.
 * Times are ISO 8601 in UTC.
 */
import type { AuditEvent, Client, Grant, Owner, TokenCredential } from '../../provider/index.ts';
import { describeDevice, tokenStatus } from '../../provider/index.ts';

/** A time as the admin API writes it: ISO 8601, UTC. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function clientView(client: Client) {
  return {
    key: client.key,
    name: client.name,
    description: client.description,
    website: client.website,
    callbacks: client.callbacks,
    signatureMethods: client.signatureMethods,
    publicKey: client.publicKey,
    constrainedDevice: client.constrainedDevice,
    verified: client.verified,
    developerId: client.developerId,
    disabled: client.disabled,
    sessionExtension: client.sessionExtension,
    rememberConsent: client.rememberConsent,
    tokenResponseIdentity: client.tokenResponseIdentity,
    scopes: client.scopes,
    requestsPerMinute: client.requestsPerMinute,
    failuresPerMinute: client.failuresPerMinute,
    createdAt: iso(client.createdAt),
  };
}

export function ownerView(owner: Owner) {
  return {
    id: owner.id,
    source: owner.source,
    subject: owner.subject,
    issuer: owner.issuer,
    name: owner.name,
    username: owner.username,
    createdAt: iso(owner.createdAt),
  };
}

export function tokenView(token: TokenCredential, now: number) {
  return {
    token: token.token,
    clientKey: token.clientKey,
    ownerId: token.ownerId,
    scope: token.scope,
    status: tokenStatus(token, now),
    issuedAt: iso(token.issuedAt),
    expiresAt: isoOrNull(token.expiresAt),
    lastUsedAt: isoOrNull(token.lastUsedAt),
    deviceHint: token.deviceHint,
    device: token.deviceHint === null ? null : describeDevice(token.deviceHint),
    revokedAt: isoOrNull(token.revokedAt),
  };
}

export function grantView(grant: Grant) {
  return { ...grant, lastUsedAt: isoOrNull(grant.lastUsedAt) };
}

export function eventView(event: Omit<AuditEvent, 'id'> & { readonly id?: number }) {
  return {
    ...(event.id === undefined ? {} : { id: event.id }),
    at: iso(event.at),
    event: event.event,
    actor: event.actor,
    ownerId: event.ownerId,
    clientKey: event.clientKey,
    address: event.address,
    detail: JSON.parse(event.detail) as unknown,
  };
}

const text = { type: 'string' } as const;
const textOrNull = { type: ['string', 'null'] } as const;
const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
const list = { type: 'array', items: text } as const;
const intOrNull = { type: ['integer', 'null'] } as const;

export const clientSchema = {
  type: 'object',
  properties: {
    key: text,
    name: text,
    description: text,
    website: textOrNull,
    callbacks: list,
    signatureMethods: list,
    publicKey: textOrNull,
    constrainedDevice: { type: 'boolean' },
    verified: { type: 'boolean' },
    developerId: textOrNull,
    disabled: { type: 'boolean' },
    sessionExtension: { type: 'boolean' },
    rememberConsent: { type: 'string', enum: ['never', 'same-scope'] },
    tokenResponseIdentity: { type: 'boolean' },
    scopes: {
      ...list,
      description:
        'Its scope ceiling: the scopes it may ask for and use; empty for any scope the server knows.',
    },
    requestsPerMinute: intOrNull,
    failuresPerMinute: intOrNull,
    createdAt: time,
  },
  required: ['key', 'name', 'disabled', 'createdAt'],
} as const;

export const ownerSchema = {
  type: 'object',
  properties: {
    id: text,
    source: { enum: ['local', 'oidc', 'delegated'] },
    subject: text,
    issuer: textOrNull,
    name: text,
    username: textOrNull,
    createdAt: time,
  },
  required: ['id', 'source', 'subject', 'name', 'createdAt'],
} as const;

export const tokenSchema = {
  type: 'object',
  properties: {
    token: text,
    clientKey: text,
    ownerId: text,
    scope: text,
    status: { enum: ['active', 'expired', 'revoked'] },
    issuedAt: time,
    expiresAt: timeOrNull,
    lastUsedAt: timeOrNull,
    deviceHint: {
      type: ['string', 'null'],
      description: 'The User-Agent of its first verified request; null until it is used.',
    },
    device: {
      type: ['string', 'null'],
      description: 'The device hint in a readable short form ("curl/8.5", "Firefox on Linux").',
    },
    revokedAt: timeOrNull,
  },
  required: ['token', 'clientKey', 'ownerId', 'status'],
} as const;

export const grantSchema = {
  type: 'object',
  properties: {
    ownerId: text,
    clientKey: text,
    activeTokens: { type: 'integer' },
    lastUsedAt: timeOrNull,
  },
  required: ['ownerId', 'clientKey', 'activeTokens'],
} as const;

export const eventSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    at: time,
    event: text,
    actor: { enum: ['owner', 'client', 'admin', 'operator'] },
    ownerId: textOrNull,
    clientKey: textOrNull,
    address: textOrNull,
    detail: { type: 'object' },
  },
  required: ['at', 'event', 'actor', 'detail'],
} as const;
