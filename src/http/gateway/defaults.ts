/** The gateway's defaults, read by the gateway and by the settings catalog. */
import type { IdentityHeaderNames } from './gateway.ts';

/** The headers that tell the upstream who is calling. */
export const DEFAULT_IDENTITY_HEADERS: IdentityHeaderNames = {
  client: 'X-OAuth-Client',
  owner: 'X-OAuth-Owner',
  ownerName: 'X-OAuth-Owner-Name',
  scope: 'X-OAuth-Scope',
};

/** Give up connecting to the upstream after this long (504). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/** Give up waiting for the upstream's answer after this long (504). */
export const DEFAULT_RESPONSE_TIMEOUT_MS = 30_000;

/**
 * A request body must have arrived in full this long after the request began, or the request
 * is answered 408 and its connection closed (docs/gateway.md, "Slow uploads").
 */
export const DEFAULT_UPLOAD_TIMEOUT_MS = 60_000;

/** Bodies one address may be sending at once; one more is answered 429. */
export const DEFAULT_MAX_UPLOADS_PER_ADDRESS = 16;
