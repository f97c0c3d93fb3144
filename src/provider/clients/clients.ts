/**
 * Client registration and upkeep (§1.1: "established with the server before any request";
 * we do it through the CLI and the developer portal).
 */
import type { Client, ClientChanges, RememberConsent, Store } from '../../store/types.ts';
import { StoreConflictError } from '../../store/types.ts';
import { checkClientFields, checkKeyMaterial, publicKeyOnly } from './client-fields.ts';
import { checkIdentifier, checkSecret } from './credential-values.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import { newIdentifier, newSecret } from '../secrets.ts';
import type { ProviderEvents } from '../events.ts';
import type { Policy } from '../policy.ts';
import { checkScopeCeiling } from '../scope.ts';
import { checkOverlap, createRotation, type Rotation, type RotationOptions } from './rotation.ts';

export interface ClientRegistration {
  readonly name: string;
  readonly description?: string | undefined;
  readonly website?: string | undefined;
  readonly callbacks?: readonly string[] | undefined;
  readonly signatureMethods?: readonly string[] | undefined;
  /** PEM public key or X.509 certificate, for the public-key methods. */
  readonly publicKey?: string | undefined;
  readonly constrainedDevice?: boolean | undefined;
  /** Short-lived tokens renewed with a session handle (session extension); default false. */
  readonly sessionExtension?: boolean | undefined;
  /** Whether the owner's consent is remembered (operators only; docs/decisions.md); default 'never'. */
  readonly rememberConsent?: RememberConsent | undefined;
  /** The token response names the owner (`user_id`, `screen_name`); default false. */
  readonly tokenResponseIdentity?: boolean | undefined;
  /** Its scope ceiling (operators only; docs/decisions.md "Scope ceilings"); default none. */
  readonly scopes?: readonly string[] | undefined;
  readonly developerId?: string | undefined;
  /** Existing credentials, for migrating from another provider. */
  readonly key?: string | undefined;
  readonly secret?: string | undefined;
}

/** A time as ISO 8601, or null. */
const isoOrNull = (at: number | null) => (at === null ? null : new Date(at).toISOString());

/** A new client, its key and secret made here unless given (credentials migrated from elsewhere). */
async function registerClient(
  store: Store,
  policy: Policy,
  events: ProviderEvents,
  input: ClientRegistration,
): Promise<Client> {
  const methods = policy.signatureMethods;
  checkClientFields(input, methods);
  const scopes = checkScopeCeiling(input.scopes ?? [], policy);
  if (input.key !== undefined) checkIdentifier('key', 'A client key', input.key);
  if (input.secret !== undefined) checkSecret('secret', 'A client secret', input.secret);
  const keyOnly = publicKeyOnly(input.signatureMethods ?? [], methods);
  try {
    const client = await store.clients.create({
      key: input.key ?? newIdentifier(),
      secret: input.secret ?? (keyOnly ? '' : newSecret()),
      name: input.name.trim(),
      description: input.description ?? '',
      website: input.website || null,
      callbacks: [...(input.callbacks ?? [])],
      signatureMethods: [...(input.signatureMethods ?? [])],
      publicKey: input.publicKey || null,
      constrainedDevice: input.constrainedDevice ?? false,
      verified: false,
      developerId: input.developerId ?? null,
      disabled: false,
      sessionExtension: input.sessionExtension ?? false,
      rememberConsent: input.rememberConsent ?? 'never',
      tokenResponseIdentity: input.tokenResponseIdentity ?? false,
      scopes,
    });
    events.emit('client.created', { clientKey: client.key, developerId: client.developerId });
    return client;
  } catch (error) {
    if (error instanceof StoreConflictError)
      throw new InputError('key', 'A client with this key exists.');
    throw error;
  }
}

/** The registry's `update`, with the previous credential kept for the overlap asked. */
async function updateClient(
  deps: { store: Store; policy: Policy; events: ProviderEvents; rotation: Rotation },
  get: (key: string) => Promise<Client>,
  key: string,
  asked: ClientChanges,
  options: RotationOptions | undefined,
): Promise<Client> {
  const { store, policy, events, rotation } = deps;
  const methods = policy.signatureMethods;
  const overlapSeconds = checkOverlap(options);
  const changes: ClientChanges =
    asked.scopes === undefined
      ? asked
      : { ...asked, scopes: checkScopeCeiling(asked.scopes, policy) };
  checkClientFields(
    {
      ...changes,
      website: changes.website ?? undefined,
      publicKey: changes.publicKey ?? undefined,
    },
    methods,
  );
  if (changes.secret !== undefined && changes.secret !== '') {
    checkSecret('secret', 'A client secret', changes.secret);
  }
  const current = await get(key);
  const keyMaterial = ['signatureMethods', 'publicKey', 'secret'] as const;
  if (keyMaterial.some((field) => changes[field] !== undefined)) {
    checkKeyMaterial({ ...current, ...changes }, methods);
  }
  const secretReplaced = changes.secret !== undefined && changes.secret !== current.secret;
  const keyReplaced = changes.publicKey !== undefined && changes.publicKey !== current.publicKey;
  // A removed secret or key has no overlap: the method step refuses it before any signature.
  const secretUntil = secretReplaced
    ? await rotation.keepPrevious(current, 'secret', changes.secret === '' ? 0 : overlapSeconds)
    : null;
  const keyUntil = keyReplaced
    ? await rotation.keepPrevious(
        current,
        'public-key',
        changes.publicKey === null ? 0 : overlapSeconds,
      )
    : null;
  const client = await store.clients.update(key, changes);
  if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
  events.emit('client.updated', { clientKey: key, fields: Object.keys(changes) });
  if (secretReplaced) {
    events.emit('client.secret-rotated', {
      clientKey: key,
      overlapEndsAt: isoOrNull(secretUntil),
    });
  }
  if (keyReplaced) {
    events.emit('client.public-key-replaced', {
      clientKey: key,
      overlapEndsAt: isoOrNull(keyUntil),
    });
  }
  return client;
}

export function createClientRegistry(
  store: Store,
  policy: Policy,
  events: ProviderEvents,
  now: () => number,
) {
  const rotation = createRotation(store, now, events);

  async function get(key: string): Promise<Client> {
    const client = await store.clients.find(key);
    if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
    return client;
  }

  return {
    register: (input: ClientRegistration) => registerClient(store, policy, events, input),

    /**
     * Changes what the client registered (name, website, description, callbacks, methods,
     * public key…), or the operator's settings (its scope ceiling…). Obeyed from the next
     * request on, on every instance (the store's caches drop it); a lowered ceiling narrows
     * the tokens already issued too. A replaced public key or secret stays valid for
     * `overlapSeconds` (rotation.ts; default 0: refused at once).
     */
    update: (key: string, asked: ClientChanges, options?: RotationOptions) =>
      updateClient({ store, policy, events, rotation }, get, key, asked, options),

    /**
     * An operator turns a client off (every request with its key: 401 consumer_key_rejected)
     * or on again. Its tokens are kept, so they work again once it is enabled.
     */
    async setDisabled(key: string, disabled: boolean): Promise<Client> {
      const client = await store.clients.update(key, { disabled });
      if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
      events.emit(disabled ? 'client.disabled' : 'client.enabled', { clientKey: key });
      return client;
    },

    /**
     * A new secret. The old one stops working on the next request, or stays valid for
     * `overlapSeconds` more (rotation.ts).
     */
    async rotateSecret(key: string, options?: RotationOptions): Promise<Client> {
      const overlapSeconds = checkOverlap(options);
      const until = await rotation.keepPrevious(await get(key), 'secret', overlapSeconds);
      const client = await store.clients.update(key, { secret: newSecret() });
      if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
      events.emit('client.secret-rotated', { clientKey: key, overlapEndsAt: isoOrNull(until) });
      return client;
    },

    /** The client's previous secret or key still in its overlap, and when each overlap ends. */
    overlaps: rotation.overlaps,

    /** Ends the client's overlaps now: its previous secret and key are refused at once. */
    endOverlaps: rotation.endOverlapsNow,

    /** Upkeep: records the overlaps that ended and forgets what is no longer recognised. */
    recordEndedOverlaps: rotation.endOverlaps,

    get,

    /** The client, or undefined when there is none. */
    find: (key: string) => store.clients.find(key),

    list: (filter?: { readonly developerId?: string }) => store.clients.list(filter),

    /** The client `key` when `developerId` registered it (the developer portal); else undefined. */
    async findOwnedBy(key: string, developerId: string): Promise<Client | undefined> {
      const client = await store.clients.find(key);
      return client !== undefined && client.developerId === developerId ? client : undefined;
    },

    async remove(key: string): Promise<void> {
      if (!(await store.clients.remove(key))) throw new NotFoundError(`No client with key ${key}.`);
      events.emit('client.deleted', { clientKey: key });
    },
  };
}

export type ClientRegistry = ReturnType<typeof createClientRegistry>;
