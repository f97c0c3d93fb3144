/**
 * Where the `clients` commands get and change clients: the provider on the configured
 * database, or a server's admin API (`--server`). Both give the same Client records, so each
 * command prints the same way wherever it runs.
 */
import type { Command } from 'commander';
import type {
  Client,
  ClientChanges,
  ClientRegistration,
  Provider,
  RotationOptions,
} from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface ClientsSource {
  list(): Promise<Client[]>;
  get(key: string): Promise<Client>;
  register(registration: ClientRegistration): Promise<Client>;
  update(key: string, changes: ClientChanges, options?: RotationOptions): Promise<Client>;
  setDisabled(key: string, disabled: boolean): Promise<Client>;
  rotateSecret(key: string, options?: RotationOptions): Promise<Client>;
  /** The previous secret or public key still accepted, and until when (ms). */
  overlaps(key: string): Promise<Overlap[]>;
  /** Ends them now: the previous credentials are refused from the next request. */
  endOverlaps(key: string): Promise<void>;
  remove(key: string): Promise<void>;
}

export interface Overlap {
  readonly credential: 'secret' | 'public-key';
  readonly replacedAt: number;
  readonly until: number;
  /** The last request it signed that was accepted, or null. */
  readonly lastUsedAt: number | null;
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
    update: (key, changes, options) => run((c) => c.update(key, changes, options)),
    setDisabled: (key, disabled) => run((c) => c.setDisabled(key, disabled)),
    rotateSecret: (key, options) => run((c) => c.rotateSecret(key, options)),
    overlaps: (key) =>
      run(async (c) => {
        await c.get(key);
        return (await c.overlaps(key)).map(({ kind, replacedAt, until, lastUsedAt }) => ({
          credential: kind,
          replacedAt,
          until,
          lastUsedAt,
        }));
      }),
    endOverlaps: (key) =>
      run(async (c) => {
        await c.get(key);
        await c.endOverlaps(key);
      }),
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

/** The admin API's `/overlaps` answer (src/http/admin/client-overlaps.ts). */
interface OverlapsJson {
  overlaps: {
    credential: Overlap['credential'];
    replacedAt: string;
    until: string;
    lastUsedAt: string | null;
  }[];
}

const overlapsOf = (json: OverlapsJson): Overlap[] =>
  json.overlaps.map((overlap) => ({
    credential: overlap.credential,
    replacedAt: Date.parse(overlap.replacedAt),
    until: Date.parse(overlap.until),
    lastUsedAt: overlap.lastUsedAt === null ? null : Date.parse(overlap.lastUsedAt),
  }));

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
    update: async (key, changes, options) =>
      // The admin API asks for If-Match on a change; `*` as the CLI changes what it is told.
      clientOf(
        await api.call<ClientJson>('PATCH', path(key), {
          body: { ...changes, ...options },
          ifMatch: '*',
        }),
      ),
    setDisabled: (key, disabled) => post(key, disabled ? '/disable' : '/enable'),
    rotateSecret: async (key, options) =>
      clientOf(
        await api.call<ClientJson>('POST', path(key, '/rotate-secret'), { body: options ?? {} }),
      ),
    overlaps: async (key) =>
      overlapsOf(await api.call<OverlapsJson>('GET', path(key, '/overlaps'))),
    endOverlaps: async (key) => {
      await api.call('POST', path(key, '/end-overlaps'));
    },
    remove: async (key) => {
      await api.call('DELETE', path(key));
    },
  };
}
