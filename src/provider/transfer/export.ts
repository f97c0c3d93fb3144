/**
 * Exporting owners, clients and token credentials in the transfer format (records.ts,
 * docs/import.md): what `latchkey import` reads, so an export imported elsewhere is the same
 * owners (ids and subjects) and credentials. Every field is written, in one order, times as
 * ISO 8601 with milliseconds, so exporting what an import wrote gives the same lines. Secrets
 * (and password hashes) only when asked for.
 */
import type { Client, Owner, Store, TokenCredential } from '../../store/types.ts';

/** An owner reference as written: a delegated owner has no issuer at all (records.ts). */
export type ExportedOwner =
  | { readonly username: string }
  | { readonly source: 'oidc'; readonly issuer: string | null; readonly subject: string }
  | { readonly source: 'delegated'; readonly subject: string };

export interface ExportOptions {
  /**
   * Write client and token secrets and owners' password hashes (default: left out; the import
   * then keeps stored ones).
   */
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

/** An owner as a record names it: a local one by username, another by source and subject. */
export function ownerReferenceOf(owner: Owner): ExportedOwner {
  if (owner.source === 'local' && owner.username !== null) return { username: owner.username };
  return owner.source === 'oidc'
    ? { source: 'oidc', issuer: owner.issuer, subject: owner.subject }
    : { source: 'delegated', subject: owner.subject };
}

/** An owner as a record; a password hash only with secrets, an owner without one says so. */
export function ownerRecordOf(owner: Owner, includeSecrets: boolean) {
  return {
    kind: 'owner',
    id: owner.id,
    source: owner.source,
    issuer: owner.issuer,
    subject: owner.subject,
    name: owner.name,
    username: owner.username,
    ...(owner.passwordHash === null
      ? { passwordHash: null }
      : includeSecrets
        ? { passwordHash: owner.passwordHash }
        : {}),
    createdAt: iso(owner.createdAt),
  };
}

/** A client as a record. A client without a shared secret says so (null) even without secrets. */
export function clientRecordOf(
  client: Client,
  owners: ReadonlyMap<string, ExportedOwner>,
  includeSecrets: boolean,
) {
  const developer = client.developerId === null ? undefined : owners.get(client.developerId);
  return {
    kind: 'client',
    key: client.key,
    ...(client.secret === '' ? { secret: null } : includeSecrets ? { secret: client.secret } : {}),
    name: client.name,
    description: client.description,
    website: client.website,
    callbacks: client.callbacks,
    signatureMethods: client.signatureMethods,
    publicKey: client.publicKey,
    constrainedDevice: client.constrainedDevice,
    verified: client.verified,
    disabled: client.disabled,
    sessionExtension: client.sessionExtension,
    rememberConsent: client.rememberConsent,
    tokenResponseIdentity: client.tokenResponseIdentity,
    scopes: client.scopes,
    developer: developer ?? null,
    createdAt: iso(client.createdAt),
  };
}

export function tokenRecordOf(
  token: TokenCredential,
  owners: ReadonlyMap<string, ExportedOwner>,
  includeSecrets: boolean,
) {
  return {
    kind: 'token',
    token: token.token,
    ...(includeSecrets ? { secret: token.secret } : {}),
    client: token.clientKey,
    // Every token has its owner (a foreign key); the id only if the owner vanished meanwhile.
    owner: owners.get(token.ownerId) ?? { username: token.ownerId },
    scope: token.scope,
    issuedAt: iso(token.issuedAt),
    expiresAt: isoOrNull(token.expiresAt),
    lastUsedAt: isoOrNull(token.lastUsedAt),
    // The User-Agent of its first verified request: how its owner tells it from the others.
    deviceHint: token.deviceHint,
    revokedAt: isoOrNull(token.revokedAt),
    // The handle's hash renews the token: it travels with the secrets.
    ...(includeSecrets ? { sessionHandleHash: token.sessionHandleHash } : {}),
    sessionExpiresAt: isoOrNull(token.sessionExpiresAt),
  };
}

export type ExportedRecord =
  | ReturnType<typeof ownerRecordOf>
  | ReturnType<typeof clientRecordOf>
  | ReturnType<typeof tokenRecordOf>;

/**
 * Every owner (by id), then every client, then every token credential, each in key order;
 * clients and tokens read a page at a time.
 */
export async function* exportRecords(
  store: Store,
  options: ExportOptions = {},
): AsyncGenerator<ExportedRecord> {
  const includeSecrets = options.includeSecrets === true;
  const pageSize = options.pageSize ?? 1000;
  const listed = (await store.owners.list()).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const owner of listed) yield ownerRecordOf(owner, includeSecrets);
  const owners = new Map(listed.map((o) => [o.id, ownerReferenceOf(o)]));
  for (let after: string | undefined; ;) {
    const page = await store.transfer.clientsAfter(after, pageSize);
    for (const client of page) yield clientRecordOf(client, owners, includeSecrets);
    if (page.length < pageSize) break;
    after = page.at(-1)!.key;
  }
  for (let after: string | undefined; ;) {
    const page = await store.transfer.tokensAfter(after, pageSize);
    for (const token of page) yield tokenRecordOf(token, owners, includeSecrets);
    if (page.length < pageSize) break;
    after = page.at(-1)!.token;
  }
}
