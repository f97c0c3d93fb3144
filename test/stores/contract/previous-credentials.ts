// Contract: PreviousCredentialStore (src/store/contract/previous-credentials.ts), written once
// for both SQL stores: one previous credential per client and kind (a second rotation replaces
// the first), the end of an overlap reported once however many instances ask, an overlap cut
// short, forgetting, and the rows going with their client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PreviousCredential, Store } from '../../../src/store/index.ts';
import { minute, newClient, now } from './fixtures.ts';

function previous(clientKey: string, overrides: Partial<PreviousCredential> = {}) {
  return {
    clientKey,
    kind: 'secret',
    value: 'old secret & key=with "any" characters',
    replacedAt: now,
    until: now + 60 * minute,
    endedAt: null,
    lastUsedAt: null,
    ...overrides,
  } satisfies PreviousCredential;
}

export function describePreviousCredentials(store: () => Store): void {
  describe("a client's previous credentials", () => {
    it('keeps one per kind, a second rotation replacing the first', async () => {
      const client = await store().clients.create(newClient());
      await store().previousCredentials.keep(previous(client.key));
      await store().previousCredentials.keep(
        previous(client.key, { kind: 'public-key', value: '-----BEGIN PUBLIC KEY-----' }),
      );
      await store().previousCredentials.keep(
        previous(client.key, { value: 'second', replacedAt: now + minute }),
      );
      const kept = await store().previousCredentials.find(client.key);
      assert.deepEqual(
        kept.map((p) => [p.kind, p.value, p.replacedAt]),
        [
          ['public-key', '-----BEGIN PUBLIC KEY-----', now],
          ['secret', 'second', now + minute],
        ],
      );
    });

    it('reports the end of an overlap once, to whichever instance asks first', async () => {
      const client = await store().clients.create(newClient());
      await store().previousCredentials.keep(previous(client.key, { until: now + minute }));
      const early = await store().previousCredentials.endOverlaps(now);
      assert.equal(early.filter((p) => p.clientKey === client.key).length, 0);
      const [first, second] = await Promise.all([
        store().previousCredentials.endOverlaps(now + minute),
        store().previousCredentials.endOverlaps(now + minute),
      ]);
      const mine = [...first!, ...second!].filter((p) => p.clientKey === client.key);
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.endedAt, now + minute);
      assert.equal(mine[0]!.value, 'old secret & key=with "any" characters');
    });

    it('cuts a live overlap short, and forgets what ended before a cut-off', async () => {
      const client = await store().clients.create(newClient());
      await store().previousCredentials.keep(previous(client.key, { until: now + 60 * minute }));
      assert.equal(await store().previousCredentials.endNow(client.key, now + minute), 1);
      assert.equal(await store().previousCredentials.endNow(client.key, now + 2 * minute), 0);
      const [cut] = await store().previousCredentials.find(client.key);
      assert.equal(cut!.until, now + minute);
      assert.ok((await store().previousCredentials.forget(now + minute)) >= 1);
      assert.deepEqual(await store().previousCredentials.find(client.key), []);
    });

    it('keeps the latest use of each, whatever order the batches come in', async () => {
      const client = await store().clients.create(newClient());
      await store().previousCredentials.keep(previous(client.key));
      await store().previousCredentials.touch([]);
      await store().previousCredentials.touch([
        { clientKey: client.key, kind: 'secret', at: now + 2 * minute },
        { clientKey: client.key, kind: 'public-key', at: now + 3 * minute },
      ]);
      await store().previousCredentials.touch([
        { clientKey: client.key, kind: 'secret', at: now + minute },
      ]);
      const [kept] = await store().previousCredentials.find(client.key);
      assert.equal(kept!.lastUsedAt, now + 2 * minute);
    });

    it('goes with its client', async () => {
      const client = await store().clients.create(newClient());
      await store().previousCredentials.keep(previous(client.key));
      await store().clients.remove(client.key);
      assert.deepEqual(await store().previousCredentials.find(client.key), []);
    });
  });
}
