// The store contract suite: every adapter's test file calls describeStoreContract with a
// factory for a store, and the same tests hold each adapter to src/store/types.ts. Nothing
// here knows the backend; each test creates its own uniquely keyed data, so the suite also
// runs against a long-lived database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeClients, describeOwners } from './contract/clients-owners.ts';
import { type MakeStore, useStore } from './contract/fixtures.ts';
import { describeExchange } from './contract/exchange.ts';
import { describeLoginChallenges } from './contract/login-challenges.ts';
import { describeConsoleSessions } from './contract/console-sessions.ts';
import { describeNonces } from './contract/nonces.ts';
import { describePreviousCredentials } from './contract/previous-credentials.ts';
import { describeAttempts, describeSessions } from './contract/sessions-attempts.ts';
import { describeTemporaryCredentials } from './contract/temporary-credentials.ts';
import { describeTokenCredentials } from './contract/token-credentials.ts';
import { describeTransfer } from './contract/transfer.ts';
import { describeUsage } from './contract/usage.ts';
import { describeWebhooks } from './contract/webhooks.ts';

export type { MakeStore };

export function describeStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} store: the storage contract`, () => {
    const store = useStore(makeStore);

    describeClients(store);
    describePreviousCredentials(store);
    describeConsoleSessions(store);
    describeOwners(store);
    describeTemporaryCredentials(store);
    describeExchange(store);
    describeTokenCredentials(store);
    describeNonces(store);
    describeSessions(store);
    describeAttempts(store);
    describeTransfer(store);
    describeLoginChallenges(store);
    describeWebhooks(store);
    describeUsage(store);

    describe('health', () => {
      it('answers ping while open', async () => {
        assert.equal(await store().ping(), true);
      });

      it('answers ping with false once closed', async () => {
        const other = await makeStore();
        await other.close();
        assert.equal(await other.ping(), false);
      });
    });
  });
}
