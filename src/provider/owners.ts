/** Resource owner accounts: created by an operator, signed in on the authorization page. */
import { randomUUID } from 'node:crypto';
import type { Owner, Store } from '../store/types.ts';
import { StoreConflictError } from '../store/types.ts';
import { InputError, NotFoundError } from './input-error.ts';
import { checkPassword, dummyPasswordHash, hashPassword } from './passwords.ts';

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;
export const MIN_PASSWORD_LENGTH = 8;

function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) {
    throw new InputError('password', `A password is ${MIN_PASSWORD_LENGTH} to 1024 characters.`);
  }
}

export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw new InputError('username', 'A username is 1 to 64 characters: letters, digits, . _ @ -');
  }
}

export function createOwnerDirectory(store: Store) {
  /** `passwordHash` '' matches no password: the account cannot sign in until given one. */
  async function createAccount(username: string, passwordHash: string): Promise<Owner> {
    checkUsername(username);
    try {
      return await store.owners.create({ id: randomUUID(), username, passwordHash });
    } catch (error) {
      if (error instanceof StoreConflictError)
        throw new InputError('username', `The username ${username} is taken.`);
      throw error;
    }
  }

  return {
    async create(username: string, password: string): Promise<Owner> {
      checkUsername(username);
      checkNewPassword(password);
      return createAccount(username, await hashPassword(password));
    },

    /**
     * An account for tokens imported from another provider, without a password: it cannot
     * sign in until an operator sets one (`latchkey users passwd`).
     */
    createWithoutPassword: (username: string) => createAccount(username, ''),

    /** The owner if the password is right; an unknown username costs the same time. */
    async authenticate(username: string, password: string): Promise<Owner | undefined> {
      const owner = USERNAME.test(username)
        ? await store.owners.findByUsername(username)
        : undefined;
      const ok = await checkPassword(password, owner?.passwordHash ?? (await dummyPasswordHash()));
      return ok ? owner : undefined;
    },

    async setPassword(username: string, password: string): Promise<void> {
      checkNewPassword(password);
      const owner = await this.get(username);
      await store.owners.setPasswordHash(owner.id, await hashPassword(password));
      await store.sessions.removeForOwner(owner.id); // a new password signs every browser out
    },

    async get(username: string): Promise<Owner> {
      const owner = await store.owners.findByUsername(username);
      if (owner === undefined) throw new NotFoundError(`No user named ${username}.`);
      return owner;
    },

    findById: (id: string) => store.owners.findById(id),
    /** The owner from the store's read cache, without a promise; undefined: ask findById. */
    peekById: (id: string) => store.owners.peekById?.(id),
    list: () => store.owners.list(),

    async remove(username: string): Promise<void> {
      const owner = await this.get(username);
      await store.owners.remove(owner.id);
    },
  };
}

export type OwnerDirectory = ReturnType<typeof createOwnerDirectory>;
