/**
 * The owner directory as the provider hands it out: what an operator does to accounts, and a
 * refused password, announced as security events (the audit trail).
 */
import type { ProviderEvents } from '../events.ts';
import type { OwnerDirectory } from './owners.ts';

/**
 * What an operator does to accounts (`latchkey users add|passwd|remove`) is a security event
 * too (the audit trail): who, never the password.
 */
export function withOwnerEvents(directory: OwnerDirectory, events: ProviderEvents): OwnerDirectory {
  return {
    ...directory,
    async create(username: string, password: string) {
      const owner = await directory.create(username, password);
      events.emit('owner.created', { ownerId: owner.id, source: owner.source });
      return owner;
    },
    async setPassword(username: string, password: string) {
      await directory.setPassword(username, password);
      const owner = await directory.get(username);
      events.emit('owner.password-set', { ownerId: owner.id });
    },
    async remove(reference: string) {
      const owner = await directory.remove(reference);
      events.emit('owner.removed', { ownerId: owner.id, source: owner.source });
      return owner;
    },
    /**
     * A wrong password is a security event (the audit trail), told by the account it was for:
     * never by the username as typed, where a person sometimes types their password
     * (docs/security.md "The audit trail").
     */
    async authenticate(username: string, password: string) {
      const { owner, account } = await directory.check(username, password);
      if (owner === undefined) {
        events.emit(
          'owner.sign-in-refused',
          account === undefined
            ? { kind: 'local', reason: 'unknown-username' }
            : { kind: 'local', reason: 'password', ownerId: account.id },
        );
      }
      return owner;
    },
  };
}
