/**
 * What a client may register (§1.1 leaves the client's details to the server): the rules for
 * each field and for its key material, shared by registration, updates and import.
 */
import { parseRsaPublicKey } from '../../protocol/index.ts';
import type { SignatureMethodRegistry } from '../../protocol/index.ts';
import type { Client, RememberConsent } from '../../store/types.ts';
import { parseCallbackUri } from '../flow/callbacks.ts';
import { InputError } from '../input-error.ts';

/** The fields a registration, an update or an imported record may give. */
export interface ClientFields {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly website?: string | undefined;
  readonly callbacks?: readonly string[] | undefined;
  readonly signatureMethods?: readonly string[] | undefined;
  readonly rsaPublicKey?: string | undefined;
  /** The client's own rate limits per minute; null for the server's default. */
  readonly requestsPerMinute?: number | null | undefined;
  readonly failuresPerMinute?: number | null | undefined;
  /** 'never' or 'same-scope' (the operator's setting; docs/decisions.md). */
  readonly rememberConsent?: string | undefined;
}

/** The values of a client's `rememberConsent` (docs/identity.md "Remembered consent"). */
export const REMEMBER_CONSENT_MODES: readonly RememberConsent[] = ['never', 'same-scope'];

export function isRememberConsent(value: string): value is RememberConsent {
  return (REMEMBER_CONSENT_MODES as readonly string[]).includes(value);
}

const MAX_RATE_LIMIT = 1_000_000_000;

export function checkClientFields(input: ClientFields, methods: SignatureMethodRegistry): void {
  if (input.name !== undefined && (input.name.trim() === '' || input.name.length > 100)) {
    throw new InputError('name', 'The name must be 1 to 100 characters.');
  }
  if (input.description !== undefined && input.description.length > 1000) {
    throw new InputError('description', 'The description must be at most 1000 characters.');
  }
  if (input.website !== undefined && input.website !== '') {
    const url = parseCallbackUri(input.website);
    if (url === undefined || !/^https?:$/.test(url.protocol)) {
      throw new InputError('website', 'The website must be an absolute http or https URL.');
    }
  }
  for (const callback of input.callbacks ?? []) {
    if (parseCallbackUri(callback) === undefined) {
      throw new InputError(
        'callback',
        `Not an absolute URI a browser can be sent to: ${callback.slice(0, 100)}`,
      );
    }
  }
  for (const field of ['requestsPerMinute', 'failuresPerMinute'] as const) {
    const limit = input[field];
    if (limit === undefined || limit === null) continue;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT) {
      throw new InputError(field, `${field} must be a whole number from 1 to ${MAX_RATE_LIMIT}.`);
    }
  }
  if (input.rememberConsent !== undefined && !isRememberConsent(input.rememberConsent)) {
    throw new InputError('rememberConsent', 'rememberConsent must be "never" or "same-scope".');
  }
  for (const name of input.signatureMethods ?? []) {
    if (methods.get(name) === undefined) {
      throw new InputError('signatureMethods', `Unknown signature method: ${name.slice(0, 40)}`);
    }
  }
  if (input.rsaPublicKey !== undefined && input.rsaPublicKey !== '') {
    try {
      parseRsaPublicKey(input.rsaPublicKey);
    } catch (error) {
      const privateKey = error instanceof TypeError && /private key/.test(error.message);
      throw new InputError(
        'rsaPublicKey',
        privateKey
          ? 'That is a private key: keep it secret, and give its public key (PEM) or an X.509 certificate.'
          : 'The RSA public key is not a PEM RSA public key or X.509 certificate.',
      );
    }
  }
}

/** A client's methods and its keys must agree: each allowed kind of method needs its key. */
export function checkKeyMaterial(client: Client): void {
  const methods = client.signatureMethods;
  const rsaOnly = methods.length > 0 && methods.every((name) => name.startsWith('RSA-'));
  if (rsaOnly && client.rsaPublicKey === null) {
    throw new InputError(
      'rsaPublicKey',
      'A client that signs with RSA only needs an RSA public key (PEM) or X.509 certificate.',
    );
  }
  if (!rsaOnly && client.secret === '') {
    throw new InputError(
      'signatureMethods',
      'This client has no secret, so it may use the RSA methods only; give it a secret first (rotate the secret).',
    );
  }
}
