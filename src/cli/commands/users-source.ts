/**
 * Where the `latchkey users` commands find and change resource owners: the provider on the
 * configured database, or a server's admin API (`--server`), giving the same records.
 */
import type { Command } from 'commander';
import type { Owner, Provider } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface UsersSource {
  list(): Promise<Owner[]>;
  /** Removes the owner a username, id or external subject names. */
  remove(reference: string): Promise<Owner>;
  /** A local account. */
  create(username: string, password: string): Promise<Owner>;
  /** A local account's new password (signs it out everywhere). */
  setPassword(username: string, password: string): Promise<void>;
}

export function usersSource(command: Command): UsersSource {
  const api = remoteOf(command);
  if (api !== undefined) return remoteUsers(api);
  const run = <T>(work: (owners: Provider['owners']) => Promise<T>) =>
    withProvider(configOf(command), (p) => work(p.owners));
  return {
    list: () => run((o) => o.list()),
    remove: (reference) => run((o) => o.remove(reference)),
    create: (username, password) => run((o) => o.create(username, password)),
    setPassword: (username, password) => run((o) => o.setPassword(username, password)),
  };
}

type OwnerJson = Omit<Owner, 'createdAt'> & { createdAt: string };

const ownerOf = (o: OwnerJson): Owner => ({ ...o, createdAt: Date.parse(o.createdAt) });

/** The local list's order: by name, then id. */
const byName = (a: Owner, b: Owner) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

function remoteUsers(api: AdminApi): UsersSource {
  const list = async () => (await api.all<OwnerJson>('/admin/owners')).map(ownerOf).sort(byName);
  return {
    list,
    async remove(reference) {
      const owners = await list();
      const owner =
        owners.find((o) => o.id === reference) ??
        owners.find((o) => o.username === reference) ??
        owners.find((o) => o.subject === reference);
      if (owner === undefined) throw new CommandFailure(`no user "${reference}"`);
      await api.call('DELETE', `/admin/owners/${encodeURIComponent(owner.id)}`);
      return owner;
    },
    create: async (username, password) =>
      ownerOf(await api.call<OwnerJson>('POST', '/admin/owners', { body: { username, password } })),
    async setPassword(username, password) {
      const owner = (await list()).find((o) => o.source === 'local' && o.username === username);
      if (owner === undefined) throw new CommandFailure(`no local user "${username}"`);
      await api.call('POST', `/admin/owners/${encodeURIComponent(owner.id)}/password`, {
        body: { password },
      });
    },
  };
}
