/**
 * Where the `tokens` commands list and revoke token credentials: the provider on the
 * configured database, or a server's admin API (`--server`). Both give the same records and
 * owner names, so the commands print the same way wherever they run.
 */
import type { Command } from 'commander';
import type { Owner, TokenCredential } from '../../provider/index.ts';
import { withProvider } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import type { AdminApi } from '../remote/admin-api.ts';
import { remoteOf } from '../remote/target.ts';
import { configOf } from '../settings-options.ts';

export interface TokenFilter {
  /** A username, id or external subject. */
  readonly user?: string | undefined;
  readonly client?: string | undefined;
}

export interface TokenListing {
  readonly tokens: TokenCredential[];
  /** Each owner's name by id. */
  readonly names: ReadonlyMap<string, string>;
}

/** What `tokens issue` asks for; `user` is a username, id or external subject. */
export interface TokenIssueRequest {
  readonly client: string;
  readonly user: string;
  readonly scope?: string | undefined;
  readonly lifetime?: number | undefined;
  readonly token?: string | undefined;
  readonly secret?: string | undefined;
}

export interface TokensSource {
  list(filter: TokenFilter): Promise<TokenListing>;
  /** Token credentials without the flow, the secret included (shown once). */
  issue(request: TokenIssueRequest): Promise<TokenCredential>;
  /** False when it was revoked already. */
  revoke(token: string): Promise<boolean>;
}

export function tokensSource(command: Command): TokensSource {
  const api = remoteOf(command);
  return api === undefined ? localTokens(command) : remoteTokens(api);
}

function localTokens(command: Command): TokensSource {
  return {
    list: (filter) =>
      withProvider(configOf(command), async (p) => {
        const owner = filter.user === undefined ? undefined : await p.owners.resolve(filter.user);
        if (filter.client !== undefined) await p.clients.get(filter.client);
        const tokens = await p.tokens.list({
          ...(owner === undefined ? {} : { ownerId: owner.id }),
          ...(filter.client === undefined ? {} : { clientKey: filter.client }),
        });
        return { tokens, names: new Map((await p.owners.list()).map((o) => [o.id, o.name])) };
      }),
    revoke: (token) => withProvider(configOf(command), (p) => p.tokens.revoke(token)),
    issue: (request) =>
      withProvider(configOf(command), async (p) => {
        const owner = await p.owners.resolve(request.user);
        return p.tokens.issue({
          clientKey: request.client,
          ownerId: owner.id,
          scope: request.scope,
          lifetime: request.lifetime,
          token: request.token,
          secret: request.secret,
        });
      }),
  };
}

type Iso<T, K extends keyof T> = Omit<T, K> & { [P in K]: string | null };
type TokenJson = Iso<TokenCredential, 'issuedAt' | 'expiresAt' | 'lastUsedAt' | 'revokedAt'>;
type OwnerJson = Iso<Owner, 'createdAt'>;

const msOf = (iso: string | null) => (iso === null ? null : Date.parse(iso));

function tokenOf(json: TokenJson & { secret?: string }): TokenCredential {
  return {
    ...json,
    secret: json.secret ?? '',
    issuedAt: Date.parse(json.issuedAt ?? ''),
    expiresAt: msOf(json.expiresAt),
    lastUsedAt: msOf(json.lastUsedAt),
    // A server from before device hints sends none.
    deviceHint: (json.deviceHint as string | null | undefined) ?? null,
    revokedAt: msOf(json.revokedAt),
  } as TokenCredential;
}

/** The local list's order: by issue time, then token. */
const byIssue = (a: TokenCredential, b: TokenCredential) =>
  a.issuedAt - b.issuedAt || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0);

/** The owner a username, id or external subject names, as `owners.resolve` finds it. */
function ownerNamed(owners: readonly OwnerJson[], user: string): OwnerJson {
  const owner =
    owners.find((o) => o.id === user) ??
    owners.find((o) => o.username === user) ??
    owners.find((o) => o.subject === user);
  if (owner === undefined) throw new CommandFailure(`no user "${user}"`);
  return owner;
}

function remoteTokens(api: AdminApi): TokensSource {
  return {
    async list(filter) {
      const owners = await api.all<OwnerJson>('/admin/owners');
      const ownerId = filter.user === undefined ? undefined : ownerNamed(owners, filter.user).id;
      if (filter.client !== undefined) {
        await api.call('GET', `/admin/clients/${encodeURIComponent(filter.client)}`);
      }
      const tokens = await api.all<TokenJson>('/admin/tokens', {
        client: filter.client,
        owner: ownerId,
      });
      return {
        tokens: tokens.map(tokenOf).sort(byIssue),
        names: new Map(owners.map((o) => [o.id, o.name])),
      };
    },
    async issue(request) {
      const owner = ownerNamed(await api.all<OwnerJson>('/admin/owners'), request.user);
      const issued = await api.call<TokenJson & { secret: string }>('POST', '/admin/tokens', {
        body: {
          client: request.client,
          owner: owner.id,
          scope: request.scope,
          lifetime: request.lifetime,
          token: request.token,
          secret: request.secret,
        },
      });
      return tokenOf(issued);
    },
    async revoke(token) {
      const answer = await api.call<{ revoked: number }>(
        'POST',
        `/admin/tokens/${encodeURIComponent(token)}/revoke`,
      );
      return answer.revoked === 1;
    },
  };
}
