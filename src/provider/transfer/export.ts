/**
 * Exporting clients and token credentials in the transfer format (records.ts, docs/import.md):
 * what `latchkey import` reads, so an export imported elsewhere is the same credentials.
 * Every field is written, in one order, times as ISO 8601 with milliseconds, so exporting
 * what an import wrote gives the same lines. Secrets only when asked for.
 */
import type { Client, Store, TokenCredential } from '../../store/types.ts';

export interface ExportOptions {
  /** Write client and token secrets (default: left out; the import then keeps stored ones). */
  readonly includeSecrets?: boolean | undefined;
  /** Rows read from the store at a time (default 1,000). */
  readonly pageSize?: number | undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/** A client as a record. A client without a shared secret says so (null) even without secrets. */
export function clientRecordOf(
  client: Client,
  usernames: ReadonlyMap<string, string>,
  includeSecrets: boolean,
) {
  const developer = client.developerId === null ? undefined : usernames.get(client.developerId);
  return {
    kind: 'client',
    key: client.key,
    ...(client.secret === '' ? { secret: null } : includeSecrets ? { secret: client.secret } : {}),
    name: client.name,
    description: client.description,
    website: client.website,
    callbacks: client.callbacks,
    signatureMethods: client.signatureMethods,
    rsaPublicKey: client.rsaPublicKey,
    constrainedDevice: client.constrainedDevice,
    verified: client.verified,
    disabled: client.disabled,
    developer: developer === undefined ? null : { username: developer },
    createdAt: iso(client.createdAt),
  };
}

export function tokenRecordOf(
  token: TokenCredential,
  usernames: ReadonlyMap<string, string>,
  includeSecrets: boolean,
) {
  return {
    kind: 'token',
    token: token.token,
    ...(includeSecrets ? { secret: token.secret } : {}),
    client: token.clientKey,
    owner: { username: usernames.get(token.ownerId) ?? token.ownerId },
    scope: token.scope,
    issuedAt: iso(token.issuedAt),
    expiresAt: isoOrNull(token.expiresAt),
    lastUsedAt: isoOrNull(token.lastUsedAt),
    revokedAt: isoOrNull(token.revokedAt),
  };
}

export type ExportedRecord = ReturnType<typeof clientRecordOf> | ReturnType<typeof tokenRecordOf>;

/** Every client, then every token credential, each in key order, read a page at a time. */
export async function* exportRecords(
  store: Store,
  options: ExportOptions = {},
): AsyncGenerator<ExportedRecord> {
  const includeSecrets = options.includeSecrets === true;
  const pageSize = options.pageSize ?? 1000;
  const usernames = new Map((await store.owners.list()).map((o) => [o.id, o.username]));
  for (let after: string | undefined; ;) {
    const page = await store.transfer.clientsAfter(after, pageSize);
    for (const client of page) yield clientRecordOf(client, usernames, includeSecrets);
    if (page.length < pageSize) break;
    after = page.at(-1)!.key;
  }
  for (let after: string | undefined; ;) {
    const page = await store.transfer.tokensAfter(after, pageSize);
    for (const token of page) yield tokenRecordOf(token, usernames, includeSecrets);
    if (page.length < pageSize) break;
    after = page.at(-1)!.token;
  }
}
