/**
 * Where `latchkey users list` and `remove` find resource owners: the provider on the
 * configured database, or a server's admin API (`--server`), giving the same records.
 */
import type { Command } from 'commander';
import type { Owner } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface UsersSource {
  list(): Promise<Owner[]>;
  /** Removes the owner a username, id or external subject names. */
  remove(reference: string): Promise<Owner>;
}

export function usersSource(command: Command): UsersSource {
  const api = remoteOf(command);
  if (api !== undefined) return remoteUsers(api);
  return {
    list: () => withProvider(configOf(command), (p) => p.owners.list()),
    remove: (reference) => withProvider(configOf(command), (p) => p.owners.remove(reference)),
  };
}

type OwnerJson = Omit<Owner, 'createdAt'> & { createdAt: string };

/** The local list's order: by name, then id. */
const byName = (a: Owner, b: Owner) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

function remoteUsers(api: AdminApi): UsersSource {
  const list = async () =>
    (await api.all<OwnerJson>('/admin/owners'))
      .map((o): Owner => ({ ...o, createdAt: Date.parse(o.createdAt) }))
      .sort(byName);
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
  };
}
