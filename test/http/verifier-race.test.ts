// RFC 5849 §2.3: a verifier allows a limited number of guesses (5). Guesses sent at once on
// separate sockets must not all be compared before the first is counted: each try is counted
// in the store atomically before its verifier is compared, so exactly 5 are compared, the
// rest are refused unread, and the right verifier is accepted only if it was among the 5.
// Over real HTTP, on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { signRequest } from '../../src/client/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createPostgresStore, createSqliteStore } from '../../src/store/index.ts';
import type { Client, Store } from '../../src/store/index.ts';
import { send } from '../conformance/support/http.ts';
import type { RawResponse } from '../conformance/support/http.ts';
import { requirement } from '../support/requirements.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';

const LIMIT = 5;
const WRONG = 19;

interface Opened {
  readonly store: Store;
  close(): Promise<void>;
}

const stores: Array<{ name: string; skip: string | false; open: () => Promise<Opened> }> = [
  {
    name: 'SQLite',
    skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'latchkey-verifier-race-'));
      const store = createSqliteStore({ path: join(dir, 'latchkey.db') });
      return {
        store,
        async close() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres()),
    async open() {
      const schema = runName('schema');
      const store = await createPostgresStore({ connectionString: postgresUrl, schema });
      return {
        store,
        async close() {
          await store.close();
          await dropSchema(schema);
        },
      };
    },
  },
];

/** What became of one token request. */
function outcome(answer: RawResponse): 'accepted' | 'compared' | 'refused unread' | string {
  if (answer.status === 200) return 'accepted';
  const advice = answer.fields['oauth_problem_advice'] ?? '';
  if (answer.fields['oauth_problem'] === 'verifier_invalid') {
    if (advice.startsWith('oauth_verifier does not match')) return 'compared';
    if (advice.startsWith('Too many verifier tries')) return 'refused unread';
  }
  // Read after the right verifier consumed the credential: refused before any count.
  if (answer.fields['oauth_problem'] === 'token_used') return 'refused unread';
  return `${answer.status} ${answer.text}`;
}

for (const backend of stores) {
  describe(
    `RFC 5849 §2.3 verifier guesses sent at once on ${WRONG + 1} sockets (${backend.name})`,
    {
      skip: backend.skip,
    },
    () => {
      let opened: Opened;
      let provider: Provider;
      let app: FastifyInstance;
      let base: string;
      let client: Client;
      let ownerId: string;

      before(async () => {
        opened = await backend.open();
        provider = createProvider({ store: opened.store, policy: { maxVerifierFailures: LIMIT } });
        app = await buildApp({ provider, maintenance: false });
        await app.listen({ host: '127.0.0.1', port: 0 });
        base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        client = await provider.clients.register({ name: 'Verifier race app' });
        ownerId = (
          await provider.owners.signInExternal({ source: 'delegated', subject: 'racer', name: 'R' })
        ).id;
      });

      after(async () => {
        await app.close();
        await opened.close();
      });

      const credentials = () => ({ key: client.key, secret: client.secret });

      async function temporary(): Promise<{ token: string; secret: string }> {
        const signed = signRequest({
          method: 'POST',
          url: `${base}/oauth/request_token`,
          client: credentials(),
          protocolParameters: { oauth_callback: 'oob' },
        });
        const answer = await send(signed);
        assert.equal(answer.status, 200, answer.text);
        return {
          token: answer.fields['oauth_token']!,
          secret: answer.fields['oauth_token_secret']!,
        };
      }

      for (let trial = 1; trial <= 3; trial++) {
        it(`compares exactly ${LIMIT} tries and refuses the rest unread, the right one included once the limit is reached (trial ${trial})`, async () => {
          const temp = await temporary();
          const { verifier } = await provider.authorization.approve(temp.token, ownerId);
          // Every request signed first, then all sent at once, each on its own socket.
          const guesses = [
            ...Array.from({ length: WRONG }, (_, i) => `wrong-${trial}-${i}`),
            verifier,
          ].map((guess) =>
            signRequest({
              method: 'POST',
              url: `${base}/oauth/access_token`,
              client: credentials(),
              token: temp,
              protocolParameters: { oauth_verifier: guess },
            }),
          );
          const answers = await Promise.all(guesses.map((signed) => send(signed)));
          const outcomes = answers.map(outcome);
          const count = (what: string) => outcomes.filter((o) => o === what).length;
          assert.deepEqual(
            outcomes.filter((o) => !['accepted', 'compared', 'refused unread'].includes(o)),
            [],
          );
          assert.ok(count('accepted') <= 1);
          // The store counted exactly the tries it compared, never more than the limit.
          const stored = await opened.store.temporaryCredentials.find(temp.token);
          const compared = count('compared') + count('accepted');
          assert.equal(stored?.verifierFailures, compared, outcomes.join(', '));
          assert.ok(compared <= LIMIT, outcomes.join(', '));
          assert.equal(count('refused unread'), WRONG + 1 - compared, outcomes.join(', '));
          // The right verifier is accepted only if its try was one of the counted ones;
          // otherwise every try reached the count, and exactly the limit were compared.
          const right = outcomes.at(-1);
          assert.ok(right === 'accepted' || right === 'refused unread', right);
          if (right === 'refused unread') assert.equal(compared, LIMIT, outcomes.join(', '));
          assert.equal(stored?.state, right === 'accepted' ? 'consumed' : 'authorized');
        });
      }
    },
  );
}
