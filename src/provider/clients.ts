/**
 * Client registration and upkeep (§1.1: "established with the server before any request";
 * we do it through the CLI and the developer portal).
 */
import type { EventEmitter } from 'node:events';
import type { Client, ClientChanges, Store } from '../store/types.ts';
import { StoreConflictError } from '../store/types.ts';
import type { SignatureMethodRegistry } from '../protocol/index.ts';
import { parseRsaPublicKey } from '../protocol/index.ts';
import { parseCallbackUri } from './callbacks.ts';
import { checkIdentifier, checkSecret } from './credential-values.ts';
import { InputError, NotFoundError } from './input-error.ts';
import { newIdentifier, newSecret } from './secrets.ts';

export interface ClientRegistration {
  readonly name: string;
  readonly description?: string | undefined;
  readonly website?: string | undefined;
  readonly callbacks?: readonly string[] | undefined;
  readonly signatureMethods?: readonly string[] | undefined;
  readonly rsaPublicKey?: string | undefined;
  readonly constrainedDevice?: boolean | undefined;
  readonly developerId?: string | undefined;
  /** Existing credentials, for migrating from another provider. */
  readonly key?: string | undefined;
  readonly secret?: string | undefined;
}

/** A client's methods and its keys must agree: each allowed kind of method needs its key. */
function checkKeyMaterial(client: Client): void {
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

export function createClientRegistry(
  store: Store,
  methods: SignatureMethodRegistry,
  events: EventEmitter,
) {
  function checkFields(
    input: Omit<ClientRegistration, 'key' | 'secret' | 'name'> & { name?: string | undefined },
  ) {
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

  async function get(key: string): Promise<Client> {
    const client = await store.clients.find(key);
    if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
    return client;
  }

  return {
    async register(input: ClientRegistration): Promise<Client> {
      checkFields(input);
      if (input.key !== undefined) checkIdentifier('key', 'A client key', input.key);
      if (input.secret !== undefined) checkSecret('secret', 'A client secret', input.secret);
      const rsaOnly =
        (input.signatureMethods ?? []).length > 0 &&
        input.signatureMethods!.every((m) => m.startsWith('RSA-'));
      try {
        return await store.clients.create({
          key: input.key ?? newIdentifier(),
          secret: input.secret ?? (rsaOnly ? '' : newSecret()),
          name: input.name.trim(),
          description: input.description ?? '',
          website: input.website || null,
          callbacks: [...(input.callbacks ?? [])],
          signatureMethods: [...(input.signatureMethods ?? [])],
          rsaPublicKey: input.rsaPublicKey || null,
          constrainedDevice: input.constrainedDevice ?? false,
          verified: false,
          developerId: input.developerId ?? null,
          disabled: false,
        });
      } catch (error) {
        if (error instanceof StoreConflictError)
          throw new InputError('key', 'A client with this key exists.');
        throw error;
      }
    },

    /**
     * Changes what the client registered (name, website, description, callbacks, methods, RSA
     * key…). Obeyed from the next request on, on every instance (the store's caches drop it).
     */
    async update(key: string, changes: ClientChanges): Promise<Client> {
      checkFields({
        ...changes,
        website: changes.website ?? undefined,
        rsaPublicKey: changes.rsaPublicKey ?? undefined,
      });
      if (changes.secret !== undefined && changes.secret !== '') {
        checkSecret('secret', 'A client secret', changes.secret);
      }
      const current = await get(key);
      const keyMaterial = ['signatureMethods', 'rsaPublicKey', 'secret'] as const;
      if (keyMaterial.some((field) => changes[field] !== undefined)) {
        checkKeyMaterial({ ...current, ...changes });
      }
      const client = await store.clients.update(key, changes);
      if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
      events.emit('client.updated', { clientKey: key, fields: Object.keys(changes) });
      return client;
    },

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

    /** A new secret; the old one stops working on the next request. */
    async rotateSecret(key: string): Promise<Client> {
      const client = await store.clients.update(key, { secret: newSecret() });
      if (client === undefined) throw new NotFoundError(`No client with key ${key}.`);
      return client;
    },

    get,

    /** The client, or undefined when there is none. */
    find: (key: string) => store.clients.find(key),

    list: (filter?: { readonly developerId?: string }) => store.clients.list(filter),

    async remove(key: string): Promise<void> {
      if (!(await store.clients.remove(key))) throw new NotFoundError(`No client with key ${key}.`);
    },
  };
}

export type ClientRegistry = ReturnType<typeof createClientRegistry>;
