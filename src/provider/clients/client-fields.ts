/**
 * What a client may register (§1.1 leaves the client's details to the server): the rules for
 * each field and for its key material, shared by registration, updates and import.
 */
import { publicKeyTypes, SignatureMethodRegistry } from '../../protocol/index.ts';
import type { PublicKeyMethod, SignatureMethod } from '../../protocol/index.ts';
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
  /** PEM public key or X.509 certificate, for the public-key methods. */
  readonly publicKey?: string | undefined;
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
  if (input.publicKey !== undefined && input.publicKey !== '') {
    checkPublicKeyFits(input.publicKey, input.signatureMethods ?? [], methods);
  }
}

const builtInMethods = new SignatureMethodRegistry();

/**
 * A method by name: the server's, else the built-in one it no longer accepts (a client
 * registered before the server's methods changed may still name it).
 */
function methodNamed(name: string, methods: SignatureMethodRegistry): SignatureMethod | undefined {
  return methods.get(name) ?? builtInMethods.get(name);
}

function publicKeyMethods(
  names: readonly string[],
  methods: SignatureMethodRegistry,
): PublicKeyMethod[] {
  const found: PublicKeyMethod[] = [];
  for (const name of names) {
    const method = methodNamed(name, methods);
    if (method?.keyKind === 'public-key') found.push(method);
  }
  return found;
}

/**
 * True when every method the client names signs with its key pair (§3.4.3): such a client
 * has no shared secret. A client that names none may use every method, so it needs one.
 */
export function publicKeyOnly(names: readonly string[], methods: SignatureMethodRegistry): boolean {
  return names.length > 0 && publicKeyMethods(names, methods).length === names.length;
}

/**
 * The public key must do for every public-key method the client names; a client naming none
 * (or only shared-secret methods) may give any key that one public-key method, the server's
 * or a built-in one, takes.
 */
function checkPublicKeyFits(
  pem: string,
  names: readonly string[],
  methods: SignatureMethodRegistry,
): void {
  const named = publicKeyMethods(names, methods);
  const candidates =
    named.length > 0
      ? named
      : publicKeyMethods([...methods.names(), ...builtInMethods.names()], methods);
  const errors: unknown[] = [];
  for (const method of candidates) {
    try {
      method.checkPublicKey(pem);
      if (named.length === 0) return;
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 0) return;
  const privateKey = errors.some((e) => e instanceof TypeError && /private key/.test(e.message));
  const types = publicKeyTypes(candidates);
  throw new InputError(
    'publicKey',
    privateKey
      ? 'That is a private key: keep it secret, and give its public key (PEM) or an X.509 certificate.'
      : `The ${types} public key is not a PEM ${types} public key or X.509 certificate.`,
  );
}

/** A client's methods and its keys must agree: each allowed kind of method needs its key. */
export function checkKeyMaterial(client: Client, methods: SignatureMethodRegistry): void {
  const names = client.signatureMethods;
  const named = publicKeyMethods(names, methods);
  const keyOnly = publicKeyOnly(names, methods);
  if (keyOnly && client.publicKey === null) {
    const types = publicKeyTypes(named);
    throw new InputError(
      'publicKey',
      `A client that signs with ${types} only needs an ${types} public key (PEM) or X.509 certificate.`,
    );
  }
  if (!keyOnly && client.secret === '') {
    throw new InputError(
      'signatureMethods',
      'This client has no secret, so it may use the public-key methods only; give it a secret first (rotate the secret).',
    );
  }
  if (client.publicKey !== null && named.length > 0) {
    checkPublicKeyFits(client.publicKey, names, methods);
  }
}
