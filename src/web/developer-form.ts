/**
 * The developer portal's app form, for registering and for editing: what was typed (to show
 * it again on an error) and the registration or changes the provider checks. The provider's checks are the rules; this only
 * adds the portal's own (at least one method, an RSA key for RSA methods).
 */
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
  readonly rsaPublicKey: string;
  readonly constrainedDevice: boolean;
}

export const blankAppForm: AppFormValues = {
  name: '',
  description: '',
  website: '',
  callbacks: '',
  signatureMethods: ['HMAC-SHA1', 'HMAC-SHA256'],
  rsaPublicKey: '',
  constrainedDevice: false,
};

export function readAppForm(body: unknown): AppFormValues {
  return {
    name: field(body, 'name').trim(),
    description: field(body, 'description').trim(),
    website: field(body, 'website').trim(),
    callbacks: field(body, 'callbacks'),
    signatureMethods: fields(body, 'signature_methods'),
    rsaPublicKey: field(body, 'rsa_public_key').trim(),
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
    rsaPublicKey: client.rsaPublicKey ?? '',
    constrainedDevice: client.constrainedDevice,
  };
}

/** What the portal itself requires: at least one method, and a key for the RSA methods. */
function checkPortalRules(values: AppFormValues): void {
  if (values.signatureMethods.length === 0) {
    throw new InputError('signatureMethods', 'Choose at least one signature method.');
  }
  const rsa = values.signatureMethods.some((name) => name.startsWith('RSA-'));
  if (rsa && values.rsaPublicKey === '') {
    throw new InputError(
      'rsaPublicKey',
      'The RSA signature methods need your RSA public key (PEM) or X.509 certificate.',
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
export function toChanges(values: AppFormValues): ClientChanges {
  checkPortalRules(values);
  return {
    name: values.name,
    description: values.description,
    website: values.website === '' ? null : values.website,
    callbacks: callbackList(values),
    signatureMethods: values.signatureMethods,
    rsaPublicKey: values.rsaPublicKey === '' ? null : values.rsaPublicKey,
    constrainedDevice: values.constrainedDevice,
  };
}

/** The registration for the provider; throws InputError for what the portal itself requires. */
export function toRegistration(values: AppFormValues, developerId: string): ClientRegistration {
  checkPortalRules(values);
  return {
    name: values.name,
    description: values.description,
    website: values.website,
    callbacks: callbackList(values),
    signatureMethods: values.signatureMethods,
    rsaPublicKey: values.rsaPublicKey,
    constrainedDevice: values.constrainedDevice,
    developerId,
  };
}

/** Provider field names to form field names, so the error sits next to its input. */
export function formField(providerField: string): string {
  const names: Record<string, string> = {
    callback: 'callbacks',
    signatureMethods: 'signature_methods',
    rsaPublicKey: 'rsa_public_key',
  };
  return names[providerField] ?? providerField;
}
