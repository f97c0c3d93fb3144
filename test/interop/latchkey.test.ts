// Every driver against the real Latchkey server, in-process on 127.0.0.1 with a temporary
// SQLite file: the library runs the whole RFC 5849 §2 flow over HTTP, the test approves as
// the owner through the provider's API (no browser), and /api/me echoes what was signed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { drivers } from './drivers.ts';
import { describeInterop, LEGACY_SECRETS } from './interop-suite.ts';
import type { InteropTarget } from './interop-suite.ts';

const target: InteropTarget = {
  name: 'Latchkey',
  async start({ rsaPublicKey }) {
    const directory = mkdtempSync(join(tmpdir(), 'latchkey-interop-db-'));
    const store = createSqliteStore({ path: join(directory, 'latchkey.db') });
    const provider = createProvider({ store });
    const client = await provider.clients.register({ name: 'Interop', publicKey: rsaPublicKey });
    const owner = await provider.owners.create('interop-owner', 'correct horse battery');
    // Credentials another provider issued, kept as they are (`latchkey import` writes the same).
    const legacyClient = await provider.clients.register({
      name: 'Legacy',
      key: 'legacy-printer',
      secret: LEGACY_SECRETS.client,
    });
    const legacyToken = await provider.tokens.issue({
      clientKey: legacyClient.key,
      ownerId: owner.id,
      token: 'legacy-token',
      secret: LEGACY_SECRETS.token,
    });
    const app = await buildApp({ provider });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      client: { key: client.key, secret: client.secret },
      owner,
      legacy: {
        client: { key: legacyClient.key, secret: LEGACY_SECRETS.client },
        token: { token: legacyToken.token, secret: LEGACY_SECRETS.token },
      },
      approve: async (token: string) =>
        (await provider.authorization.approve(token, owner.id)).verifier,
      diagnostics: () => '',
      async close() {
        await app.close(); // closes the provider too
        await store.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
  // Narrower than the default, so the echo shows the requested scope was honoured.
  scope: { request: 'read', expected: 'read' },
  defaultScope: 'read write',
  legacyCredentials: true,
};

for (const driver of drivers) describeInterop(driver, target);
