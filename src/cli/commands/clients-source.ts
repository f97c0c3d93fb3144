/**
 * Where the `clients` commands get and change clients: the provider on the configured
 * database, or a server's admin API (`--server`). Both give the same Client records, so each
 * command prints the same way wherever it runs.
 */
import type { Command } from 'commander';
import type { Client, ClientChanges, ClientRegistration, Provider } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface ClientsSource {
  list(): Promise<Client[]>;
  get(key: string): Promise<Client>;
  register(registration: ClientRegistration): Promise<Client>;
  update(key: string, changes: ClientChanges): Promise<Client>;
  setDisabled(key: string, disabled: boolean): Promise<Client>;
  rotateSecret(key: string): Promise<Client>;
  remove(key: string): Promise<void>;
}

/** The source for this run of `command`. */
export function clientsSource(command: Command): ClientsSource {
  const api = remoteOf(command);
  return api === undefined ? localClients(command) : remoteClients(api);
}

function localClients(command: Command): ClientsSource {
  const run = <T>(work: (clients: Provider['clients']) => Promise<T>) =>
    withProvider(configOf(command), (provider) => work(provider.clients));
  return {
    list: () => run((c) => c.list()),
    get: (key) => run((c) => c.get(key)),
    register: (registration) => run((c) => c.register(registration)),
    update: (key, changes) => run((c) => c.update(key, changes)),
    setDisabled: (key, disabled) => run((c) => c.setDisabled(key, disabled)),
    rotateSecret: (key) => run((c) => c.rotateSecret(key)),
    remove: (key) => run((c) => c.remove(key)),
  };
}

/** A client as the admin API shows it (src/http/admin/views.ts), its secret when shown once. */
type ClientJson = Omit<Client, 'createdAt' | 'secret'> & { createdAt: string; secret?: string };

const clientOf = (json: ClientJson): Client => ({
  ...json,
  secret: json.secret ?? '',
  createdAt: Date.parse(json.createdAt),
});

const byRegistration = (a: Client, b: Client) =>
  a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function remoteClients(api: AdminApi): ClientsSource {
  const path = (key: string, rest = '') => `/admin/clients/${encodeURIComponent(key)}${rest}`;
  const post = async (key: string, rest: string) =>
    clientOf(await api.call<ClientJson>('POST', path(key, rest)));
  return {
    // The admin API pages in key order; the local list is in order of registration.
    list: async () =>
      (await api.all<ClientJson>('/admin/clients')).map(clientOf).sort(byRegistration),
    get: async (key) => clientOf(await api.call<ClientJson>('GET', path(key))),
    register: async (registration) =>
      clientOf(await api.call<ClientJson>('POST', '/admin/clients', { body: registration })),
    update: async (key, changes) =>
      // The admin API asks for If-Match on a change; `*` as the CLI changes what it is told.
      clientOf(await api.call<ClientJson>('PATCH', path(key), { body: changes, ifMatch: '*' })),
    setDisabled: (key, disabled) => post(key, disabled ? '/disable' : '/enable'),
    rotateSecret: (key) => post(key, '/rotate-secret'),
    remove: async (key) => {
      await api.call('DELETE', path(key));
    },
  };
}
