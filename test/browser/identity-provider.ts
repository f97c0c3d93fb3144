/**
 * A real OpenID Connect provider for the browser suite: node-oidc-provider (npm
 * `oidc-provider`), on loopback http, with its own login form (its development interactions:
 * a login field, a password field, then a consent page). Its accounts are a small table;
 * the login typed is the account id, which becomes the ID token's `sub`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface IdentityProviderAccount {
  readonly name: string;
  readonly email: string;
}

export interface TestIdentityProvider {
  /** The issuer URL: `http://127.0.0.1:PORT`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers Latchkey's redirect URI (known once Latchkey listens) and starts answering. */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

export async function startIdentityProvider(
  accounts: Readonly<Record<string, IdentityProviderAccount>>,
): Promise<TestIdentityProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => {
    if (handler === undefined) response.writeHead(503).end('not ready');
    else handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'latchkey';
  const clientSecret = 'a-client-secret-of-the-test-identity-provider';

  return {
    issuer,
    clientId,
    clientSecret,
    register(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
        async findAccount(_context, id) {
          const account = accounts[id];
          if (account === undefined) return undefined;
          return { accountId: id, claims: () => ({ sub: id, ...account }) };
        },
        cookies: { keys: ['a-cookie-key-of-the-test-identity-provider'] },
      });
      // It warns that http and the development login form are for development: they are.
      provider.on('server_error', () => undefined);
      handler = provider.callback();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
