/**
 * The admin API's credentials (docs/admin.md "Admin tokens"): named bearer tokens with a
 * role, shown once when made. A token is `lka_<id>_<secret>`: the id finds its row, and only
 * the SHA-256 of the 256-bit secret is stored, compared in constant time. Wrong tokens are
 * counted per address in the store's rate counters (shared through Redis when configured);
 * past ADMIN_AUTH_FAILURES_PER_MINUTE the address is refused with 429 until its window ends,
 * a right token included, so guessing cannot go on.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { AdminRole, AdminToken, Store } from '../../store/types.ts';
import { StoreConflictError } from '../../store/types.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import { AdminRefusal } from './admin-errors.ts';
import { isAdminRole } from './roles.ts';

/** Wrong admin tokens one address may send in a minute before it is refused with 429. */
export const ADMIN_AUTH_FAILURES_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** Addresses this instance remembers as over the limit, at most. */
const MAX_BLOCKED = 10_000;

const TOKEN = /^lka_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Who called the admin API: the token's name (the audit trail's) and its role. */
export interface AdminIdentity {
  readonly name: string;
  readonly role: AdminRole;
}

/** A token as listed: never its digest. */
export interface AdminTokenView {
  readonly name: string;
  readonly role: AdminRole;
  readonly createdAt: number;
  readonly expiresAt: number | null;
}

const digestOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const viewOf = (token: AdminToken): AdminTokenView => ({
  name: token.name,
  role: token.role,
  createdAt: token.createdAt,
  expiresAt: token.expiresAt,
});

function tooMany(ms: number): AdminRefusal {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AdminRefusal(
    429,
    `Too many wrong admin tokens from this address; try again in ${seconds} seconds.`,
    seconds,
  );
}

/** Checks a new token's name, role and lifetime in seconds; throws InputError naming the field. */
function checkNewToken(
  name: string,
  role: string,
  seconds: number | undefined,
): { readonly role: AdminRole; readonly seconds: number | undefined } {
  if (!NAME.test(name)) {
    throw new InputError('name', 'A name is 1 to 64 characters: letters, digits, . _ @ -');
  }
  if (!isAdminRole(role)) {
    throw new InputError('role', 'A role is operator, auditor or support.');
  }
  if (seconds !== undefined && (!Number.isSafeInteger(seconds) || seconds < 1)) {
    throw new InputError('expires', 'An expiry is a whole number of seconds, at least 1.');
  }
  return { role, seconds };
}

export function createAdminTokens(store: Store, now: () => number, events: EventEmitter) {
  /** Addresses over the limit on this instance, and when their window ends. */
  const blocked = new Map<string, number>();

  function throttled(address: string): AdminRefusal | undefined {
    const until = blocked.get(address);
    if (until === undefined) return undefined;
    const left = until - now();
    if (left <= 0) {
      blocked.delete(address);
      return undefined;
    }
    return tooMany(left);
  }

  async function failure(address: string, message: string): Promise<AdminRefusal> {
    const { count, ttlMs } = await store.rateCounters.incr(`a:${address}`, WINDOW_MS);
    if (count <= ADMIN_AUTH_FAILURES_PER_MINUTE) return new AdminRefusal(401, message);
    if (blocked.size >= MAX_BLOCKED) blocked.clear();
    blocked.set(address, now() + ttlMs);
    return tooMany(ttlMs);
  }

  return {
    /** A new token for `name` with `role`; the token itself is returned this once. */
    async add(
      name: string,
      role: string,
      options: { readonly expiresInSeconds?: number | undefined } = {},
    ): Promise<{ readonly token: string; readonly admin: AdminTokenView }> {
      const { role: checkedRole, seconds } = checkNewToken(name, role, options.expiresInSeconds);
      const id = randomBytes(8).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      const createdAt = now();
      try {
        const stored = await store.adminTokens.create({
          id,
          name,
          role: checkedRole,
          digest: digestOf(secret),
          createdAt,
          expiresAt: seconds === undefined ? null : createdAt + seconds * 1000,
        });
        events.emit('admin-token.created', { name, role });
        return { token: `lka_${id}_${secret}`, admin: viewOf(stored) };
      } catch (error) {
        if (error instanceof StoreConflictError) {
          throw new InputError('name', 'An admin token with this name exists.');
        }
        throw error;
      }
    },

    async list(): Promise<AdminTokenView[]> {
      return (await store.adminTokens.list()).map(viewOf);
    },

    /** The token named `name` stops working on its next request. */
    async revoke(name: string): Promise<void> {
      if (!(await store.adminTokens.remove(name))) {
        throw new NotFoundError(`No admin token named ${name}.`);
      }
      events.emit('admin-token.revoked', { name });
    },

    /**
     * The identity of the token with public id `id` while it is valid (not revoked, not
     * expired), else undefined: a console session checks its token again on every request.
     */
    async identityOf(id: string): Promise<AdminIdentity | undefined> {
      const found = await store.adminTokens.find(id);
      if (found === undefined) return undefined;
      if (found.expiresAt !== null && found.expiresAt <= now()) return undefined;
      return { name: found.name, role: found.role };
    },

    /**
     * The caller behind `Authorization: Bearer …` from `address`, or AdminRefusal: 401 for no
     * token, a malformed, unknown, expired or wrong one; 429 while the address is over its
     * limit of wrong tokens.
     */
    async authenticate(authorization: string | undefined, address: string): Promise<AdminIdentity> {
      const early = throttled(address);
      if (early !== undefined) throw early;
      const bearer = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1];
      if (bearer === undefined) throw new AdminRefusal(401, 'An admin token is required.');
      const parts = TOKEN.exec(bearer);
      const found = parts === null ? undefined : await store.adminTokens.find(parts[1]!);
      // Digests of equal length: the comparison takes the same time whatever was sent.
      const given = Buffer.from(digestOf(parts?.[2] ?? bearer));
      const stored = Buffer.from(found?.digest ?? digestOf(''));
      const matches = timingSafeEqual(given, stored) && found !== undefined;
      if (!matches) throw await failure(address, 'This admin token is not valid.');
      if (found.expiresAt !== null && found.expiresAt <= now()) {
        throw await failure(address, 'This admin token has expired.');
      }
      return { name: found.name, role: found.role };
    },
  };
}

export type AdminTokens = ReturnType<typeof createAdminTokens>;

/** The public id of a token as pasted (`lka_<id>_<secret>`), or undefined when malformed. */
export function adminTokenIdOf(token: string): string | undefined {
  return TOKEN.exec(token)?.[1];
}
