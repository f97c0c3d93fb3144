/**
 * Resource owners, whatever their source (docs/identity.md). Local owners are accounts an
 * operator creates, signing in with a password on the authorization page; owners from an
 * OpenID Connect provider or a login app are created on their first sign-in, have no
 * password, and keep the display name their source gives them.
 */
import { randomUUID } from 'node:crypto';
import type { NewOwner, Owner, OwnerIdentity, Store } from '../../store/types.ts';
import { StoreConflictError } from '../../store/types.ts';
import { InputError, NotFoundError } from '../input-error.ts';
import { checkPassword, dummyPasswordHash, hashPassword } from './passwords.ts';

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;
/**
 * Visible ASCII, as OpenID Connect requires of `sub` (Core §5.1): a subject travels as is in
 * the gateway's `X-OAuth-Owner` header, where other characters would not survive.
 */
const SUBJECT = /^[\x21-\x7e]{1,255}$/;
const NAME_LIMIT = 200;
export const MIN_PASSWORD_LENGTH = 8;

function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) {
    throw new InputError('password', `A password is ${MIN_PASSWORD_LENGTH} to 1024 characters.`);
  }
}

/** An external identity as its source vouches for it, with the name to show. */
export interface ExternalIdentity extends OwnerIdentity {
  readonly source: 'oidc' | 'delegated';
  /** Display name; the subject is shown when it is empty. */
  readonly name?: string | undefined;
}

/** The outcome of a password sign-in. */
export interface SignInCheck {
  /** The owner signed in: the username named an account and the password is its own. */
  readonly owner: Owner | undefined;
  /** The account the username named, whether or not the password was right. */
  readonly account: Owner | undefined;
}

/** Checks a subject from a source; throws InputError naming the field. */
export function checkSubject(subject: unknown): string {
  if (typeof subject !== 'string' || !SUBJECT.test(subject)) {
    throw new InputError(
      'subject',
      'A subject is 1 to 255 visible ASCII characters (no spaces, no control characters).',
    );
  }
  return subject;
}

/** A display name made safe to show: control characters out, trimmed, at most 200 characters. */
export function cleanName(name: unknown, fallback: string): string {
  if (name !== undefined && typeof name !== 'string') {
    throw new InputError('name', 'A name is text.');
  }
  const cleaned = (name ?? '')
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, NAME_LIMIT)
    .trim();
  return cleaned === '' ? fallback.slice(0, NAME_LIMIT) : cleaned;
}

export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw new InputError('username', 'A username is 1 to 64 characters: letters, digits, . _ @ -');
  }
}

/** Creates an owner; a taken username or identity is an InputError naming the field. */
async function createOwner(
  store: Store,
  owner: NewOwner,
  conflictField: string,
  conflict: string,
): Promise<Owner> {
  try {
    return await store.owners.create(owner);
  } catch (error) {
    if (error instanceof StoreConflictError) throw new InputError(conflictField, conflict);
    throw error;
  }
}

/** A local account, with a password hash or none. */
function createLocalOwner(
  store: Store,
  username: string,
  passwordHash: string | null,
): Promise<Owner> {
  const id = randomUUID();
  return createOwner(
    store,
    { id, source: 'local', subject: id, issuer: null, name: username, username, passwordHash },
    'username',
    `The username ${username} is taken.`,
  );
}

async function signInExternal(store: Store, identity: ExternalIdentity): Promise<Owner> {
  const subject = checkSubject(identity.subject);
  const issuer = identity.source === 'oidc' ? (identity.issuer ?? null) : null;
  const name = cleanName(identity.name, subject);
  const key = { source: identity.source, issuer, subject };
  let owner = await store.owners.findByIdentity(key);
  if (owner === undefined) {
    try {
      return await store.owners.create({
        id: randomUUID(),
        ...key,
        name,
        username: null,
        passwordHash: null,
      });
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      owner = await store.owners.findByIdentity(key);
      if (owner === undefined) throw error;
    }
  }
  if (owner.name === name) return owner;
  await store.owners.rename(owner.id, name);
  return { ...owner, name };
}

async function resolveOwner(store: Store, reference: string): Promise<Owner> {
  const byName = await store.owners.findByUsername(reference);
  if (byName !== undefined) return byName;
  const byId = await store.owners.findById(reference);
  if (byId !== undefined) return byId;
  const matches = (await store.owners.list()).filter(
    (owner) => owner.source !== 'local' && owner.subject === reference,
  );
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new InputError(
      'user',
      `${matches.length} users have the subject ${reference}; give the id of one.`,
    );
  }
  throw new NotFoundError(`No user named ${reference}, and none with that id or subject.`);
}

export function createOwnerDirectory(store: Store) {
  return {
    /** A local account: signs in on Latchkey's own page with this username and password. */
    async create(username: string, password: string): Promise<Owner> {
      checkUsername(username);
      checkNewPassword(password);
      return createLocalOwner(store, username, await hashPassword(password));
    },

    /**
     * A local account for tokens imported from another provider, without a password: it
     * cannot sign in until an operator sets one (`latchkey users passwd`).
     */
    async createWithoutPassword(username: string): Promise<Owner> {
      checkUsername(username);
      return createLocalOwner(store, username, null);
    },

    /**
     * A password sign-in: `owner` when the password is right, and the account the username
     * named (if any) either way, so a refusal can be told of without repeating what was typed.
     * An unknown username costs the same time.
     */
    async check(username: string, password: string): Promise<SignInCheck> {
      const account = USERNAME.test(username)
        ? await store.owners.findByUsername(username)
        : undefined;
      const hash = account?.passwordHash ?? null;
      const ok = await checkPassword(password, hash ?? (await dummyPasswordHash()));
      return { owner: ok && hash !== null ? account : undefined, account };
    },

    /** The local owner if the password is right; an unknown username costs the same time. */
    async authenticate(username: string, password: string): Promise<Owner | undefined> {
      return (await this.check(username, password)).owner;
    },

    /**
     * An external owner signing in: found by (source, issuer, subject), created on the first
     * sign-in (no password), its name updated when the source now gives another one. Two
     * first sign-ins at once create one owner.
     */
    signInExternal: (identity: ExternalIdentity): Promise<Owner> => signInExternal(store, identity),

    async setPassword(username: string, password: string): Promise<void> {
      checkNewPassword(password);
      const owner = await this.get(username);
      await store.owners.setPasswordHash(owner.id, await hashPassword(password));
      await store.sessions.removeForOwner(owner.id); // a new password signs every browser out
    },

    /** A local owner by username. */
    async get(username: string): Promise<Owner> {
      const owner = await store.owners.findByUsername(username);
      if (owner === undefined) throw new NotFoundError(`No user named ${username}.`);
      return owner;
    },

    /**
     * An owner as an operator names it: a local username, an owner id, or the subject of an
     * external owner (refused when owners of two sources share it: name the id instead).
     */
    resolve: (reference: string): Promise<Owner> => resolveOwner(store, reference),

    findById: (id: string) => store.owners.findById(id),
    /** By (source, issuer, subject): how an imported credential names its owner. */
    findByIdentity: (identity: OwnerIdentity) => store.owners.findByIdentity(identity),
    list: () => store.owners.list(),

    /** Removes an owner (named as {@link resolve} takes it) and every credential it granted. */
    async remove(reference: string): Promise<Owner> {
      const owner = await this.resolve(reference);
      await store.owners.remove(owner.id);
      return owner;
    },
  };
}

export type OwnerDirectory = ReturnType<typeof createOwnerDirectory>;
