/** How the `clients` commands show a client: never its secret, except where that is the point. */
import type { Client } from '../../store/index.ts';
import { fields, print, printJson, time } from '../output.ts';
import type { Overlap } from './clients-source.ts';

/** Everything about a client except its secret. */
export function publicView(client: Client) {
  return {
    key: client.key,
    name: client.name,
    description: client.description,
    website: client.website,
    callbacks: client.callbacks,
    signatureMethods: client.signatureMethods,
    publicKey: client.publicKey,
    constrainedDevice: client.constrainedDevice,
    sessionExtension: client.sessionExtension,
    rememberConsent: client.rememberConsent,
    tokenResponseIdentity: client.tokenResponseIdentity,
    scopes: client.scopes,
    requestsPerMinute: client.requestsPerMinute,
    failuresPerMinute: client.failuresPerMinute,
    verified: client.verified,
    disabled: client.disabled,
    createdAt: time(client.createdAt),
  };
}

export function describeClient(client: Client, overlaps: readonly Overlap[] = []): string {
  return fields([
    ['key', client.key],
    ['name', client.name],
    ['description', client.description || '-'],
    ['website', client.website ?? '-'],
    ['callbacks', client.callbacks.join(' ') || '- (any, or oob)'],
    ['signature methods', client.signatureMethods.join(', ') || '- (any the server accepts)'],
    ['public key', client.publicKey === null ? 'no' : 'yes'],
    ['constrained device', client.constrainedDevice ? 'yes' : 'no'],
    ['session extension', client.sessionExtension ? 'yes' : 'no'],
    ['remember consent', client.rememberConsent],
    ['token response identity', client.tokenResponseIdentity ? 'yes' : 'no'],
    ['scopes', client.scopes.join(', ') || '- (any the server knows)'],
    ['requests per minute', String(client.requestsPerMinute ?? 'server default')],
    ['failed requests per minute', String(client.failuresPerMinute ?? 'server default')],
    ['verified', client.verified ? 'yes' : 'no'],
    ['status', client.disabled ? 'disabled (requests refused)' : 'enabled'],
    ['created', time(client.createdAt)],
    ...overlaps.map((overlap): [string, string] => [
      `previous ${overlap.credential === 'secret' ? 'secret' : 'public key'}`,
      `accepted until ${time(overlap.until)} (replaced ${time(overlap.replacedAt)}, last used ${overlap.lastUsedAt === null ? 'never' : time(overlap.lastUsedAt)})`,
    ]),
  ]);
}

/** The secret a command just made (`add`, `rotate-secret`): shown this once. */
export function printCredentials(
  client: Client,
  json: boolean,
  what: string,
  overlapUntil?: number,
): void {
  if (json) {
    return printJson({
      ...publicView(client),
      secret: client.secret,
      ...(overlapUntil === undefined ? {} : { previousSecretUntil: time(overlapUntil) }),
    });
  }
  print(what);
  print(
    fields([
      ['key', client.key],
      ['secret', client.secret === '' ? '(none: public-key methods only)' : client.secret],
    ]),
  );
  if (client.secret !== '') print('The secret is shown this once: store it now.');
  if (overlapUntil !== undefined) {
    print(`The previous secret is still accepted until ${time(overlapUntil)}.`);
  }
}
