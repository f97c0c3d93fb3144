/**
 * The developer portal's app form, for registering and for editing: what was typed (to show
 * it again on an error) and the registration or changes the provider checks. The provider's checks are the rules; this only
 * adds the portal's own (at least one method, a public key for the public-key methods).
 */
import { publicKeyTypes } from '../protocol/index.ts';
import type { PublicKeyMethod, SignatureMethodRegistry } from '../protocol/index.ts';
import type { ClientRegistration } from '../provider/index.ts';
import type { Client, ClientChanges } from '../provider/index.ts';
import { InputError } from '../provider/index.ts';
import { field, fields } from './form.ts';

export interface AppFormValues {
  readonly name: string;
  readonly description: string;
  readonly website: string;
  readonly callbacks: string;
  readonly signatureMethods: readonly string[];
  readonly publicKey: string;
  readonly constrainedDevice: boolean;
}

export const blankAppForm: AppFormValues = {
  name: '',
  description: '',
  website: '',
  callbacks: '',
  signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256'],
  publicKey: '',
  constrainedDevice: false,
};

export function readAppForm(body: unknown): AppFormValues {
  return {
    name: field(body, 'name').trim(),
    description: field(body, 'description').trim(),
    website: field(body, 'website').trim(),
    callbacks: field(body, 'callbacks'),
    signatureMethods: fields(body, 'signature_methods'),
    publicKey: field(body, 'public_key').trim(),
    constrainedDevice: field(body, 'constrained_device') === 'yes',
  };
}

/** The form filled in with what a client registered, for the edit page. */
export function appFormOf(client: Client): AppFormValues {
  return {
    name: client.name,
    description: client.description,
    website: client.website ?? '',
    callbacks: client.callbacks.join('\n'),
    signatureMethods: client.signatureMethods,
    publicKey: client.publicKey ?? '',
    constrainedDevice: client.constrainedDevice,
  };
}

/** The chosen methods that sign with a key pair (§3.4.3), as the server describes them. */
export function publicKeyMethodsOf(
  names: readonly string[],
  methods: SignatureMethodRegistry,
): PublicKeyMethod[] {
  return names
    .map((name) => methods.get(name))
    .filter((method) => method?.keyKind === 'public-key');
}

/**
 * "RSA": the kind of public key a client's methods take (all the server's public-key methods
 * when it names none), for the pages to name its key.
 */
export function keyTypeOf(client: Client, methods: SignatureMethodRegistry): string {
  const names = client.signatureMethods.length > 0 ? client.signatureMethods : methods.names();
  return publicKeyTypes(publicKeyMethodsOf(names, methods)) || 'public';
}

/** What the portal itself requires: at least one method, and a key for the public-key methods. */
function checkPortalRules(values: AppFormValues, methods: SignatureMethodRegistry): void {
  if (values.signatureMethods.length === 0) {
    throw new InputError('signatureMethods', 'Choose at least one signature method.');
  }
  const needKey = publicKeyMethodsOf(values.signatureMethods, methods);
  if (needKey.length > 0 && values.publicKey === '') {
    const types = publicKeyTypes(needKey);
    throw new InputError(
      'publicKey',
      `The ${types} signature methods need your ${types} public key (PEM) or X.509 certificate.`,
    );
  }
}

function callbackList(values: AppFormValues): string[] {
  return values.callbacks
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The changes an edit asks the provider for; throws InputError as toRegistration does. */
export function toChanges(values: AppFormValues, methods: SignatureMethodRegistry): ClientChanges {
  checkPortalRules(values, methods);
  return {
    name: values.name,
    description: values.description,
    website: values.website === '' ? null : values.website,
    callbacks: callbackList(values),
    signatureMethods: values.signatureMethods,
    publicKey: values.publicKey === '' ? null : values.publicKey,
    constrainedDevice: values.constrainedDevice,
  };
}

/** The registration for the provider; throws InputError for what the portal itself requires. */
export function toRegistration(
  values: AppFormValues,
  developerId: string,
  methods: SignatureMethodRegistry,
): ClientRegistration {
  checkPortalRules(values, methods);
  return {
    name: values.name,
    description: values.description,
    website: values.website,
    callbacks: callbackList(values),
    signatureMethods: values.signatureMethods,
    publicKey: values.publicKey,
    constrainedDevice: values.constrainedDevice,
    developerId,
  };
}

/** Provider field names to form field names, so the error sits next to its input. */
export function formField(providerField: string): string {
  const names: Record<string, string> = {
    callback: 'callbacks',
    signatureMethods: 'signature_methods',
    publicKey: 'public_key',
  };
  return names[providerField] ?? providerField;
}
