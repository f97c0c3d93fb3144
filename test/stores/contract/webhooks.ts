// Contract: WebhookStore (hooks and their delivery queue). Each test uses event types of its
// own and removes its hooks, so tests sharing a long-lived database do not see each other's
// deliveries; claims are filtered to the test's own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClaimedDelivery, Store, Webhook } from '../../../src/store/index.ts';
import { minute, now, unique } from './fixtures.ts';

async function newHook(store: Store, events: string[]): Promise<Webhook> {
  return store.webhooks.create({
    id: unique('wh'),
    url: 'https://hooks.example/in',
    events,
    secret: unique('whsec'),
    createdAt: now,
  });
}

function event(type: string, at = now) {
  const id = unique('evt');
  return { id, type, createdAt: at, body: JSON.stringify({ id, type }) };
}

async function claimOwn(store: Store, hook: Webhook, at: number, leaseMs = minute) {
  const claimed = await store.webhooks.claim(at, leaseMs, 1000);
  return claimed.filter((d) => d.webhookId === hook.id);
}

export function describeWebhooks(store: () => Store): void {
  const hooks = () => store().webhooks;

  describe('webhooks', () => {
    it('keeps a hook with its secret, lists it, removes it once', async () => {
      const hook = await newHook(store(), ['a.b']);
      const listed = (await hooks().list()).find((h) => h.id === hook.id);
      assert.deepEqual(listed, { ...hook, disabledAt: null });
      assert.equal(await hooks().remove(hook.id), true);
      assert.equal(await hooks().remove(hook.id), false);
      assert.equal(await hooks().enable(hook.id), false);
    });

    it('queues one delivery per enabled hook subscribed to the type, or to *', async () => {
      const type = unique('type');
      const named = await newHook(store(), [type, 'other.type']);
      const every = await newHook(store(), ['*']);
      const elsewhere = await newHook(store(), ['other.type']);
      try {
        const sent = event(type);
        assert.equal(await hooks().enqueue(sent), 2);
        for (const hook of [named, every]) {
          const [delivery] = await hooks().deliveries({ webhookId: hook.id, limit: 10 });
          assert.equal(delivery?.eventId, sent.id);
          assert.equal(delivery?.type, type);
          assert.equal(delivery?.attempts, 0);
          assert.equal(delivery?.nextAttemptAt, now);
        }
        assert.deepEqual(await hooks().deliveries({ webhookId: elsewhere.id, limit: 10 }), []);
      } finally {
        for (const hook of [named, every, elsewhere]) await hooks().remove(hook.id);
      }
    });

    it('claims a due delivery once per lease, with what sending it needs', async () => {
      const type = unique('type');
      const hook = await newHook(store(), [type]);
      try {
        const sent = event(type);
        await hooks().enqueue(sent);
        assert.deepEqual(await claimOwn(store(), hook, now - 1), []);
        const [claimed] = await claimOwn(store(), hook, now);
        assert.ok(claimed !== undefined);
        assert.equal(claimed.attempts, 1);
        assert.equal(claimed.claimedUntil, now + minute);
        assert.equal(claimed.url, hook.url);
        assert.equal(claimed.secret, hook.secret);
        assert.equal(claimed.body, sent.body);
        assert.deepEqual(await claimOwn(store(), hook, now + minute - 1), []);
        const [again] = await claimOwn(store(), hook, now + minute);
        assert.equal(again?.attempts, 2);
        assert.notEqual(again?.claim, claimed.claim);
      } finally {
        await hooks().remove(hook.id);
      }
    });

    it('records an outcome only under the claim that holds the delivery', async () => {
      const type = unique('type');
      const hook = await newHook(store(), [type]);
      try {
        await hooks().enqueue(event(type));
        const [claimed] = (await claimOwn(store(), hook, now)) as [ClaimedDelivery];
        const delivered = { kind: 'delivered', status: 204, at: now + 5 } as const;
        assert.equal(await hooks().complete(claimed.id, 'not-the-claim', delivered), false);
        assert.equal(await hooks().complete(claimed.id, claimed.claim, delivered), true);
        assert.equal(await hooks().complete(claimed.id, claimed.claim, delivered), false);
        const [logged] = await hooks().deliveries({ webhookId: hook.id, limit: 1 });
        assert.deepEqual(
          [logged?.deliveredAt, logged?.lastStatus, logged?.nextAttemptAt],
          [now + 5, 204, null],
        );
        assert.deepEqual(await claimOwn(store(), hook, now + 10 * minute), []);
      } finally {
        await hooks().remove(hook.id);
      }
    });

    it('schedules a failed attempt, gives one up, and takes a released one back at once', async () => {
      const type = unique('type');
      const hook = await newHook(store(), [type]);
      try {
        await hooks().enqueue(event(type));
        let [claimed] = (await claimOwn(store(), hook, now)) as [ClaimedDelivery];
        const failed = {
          kind: 'failed',
          status: 503,
          error: null,
          nextAttemptAt: now + 500,
        } as const;
        assert.equal(await hooks().complete(claimed.id, claimed.claim, failed), true);
        assert.deepEqual(await claimOwn(store(), hook, now + 499), []);
        [claimed] = (await claimOwn(store(), hook, now + 500)) as [ClaimedDelivery];
        assert.equal(await hooks().release(claimed.id, claimed.claim), true);
        [claimed] = (await claimOwn(store(), hook, now + 500)) as [ClaimedDelivery];
        assert.equal(claimed.attempts, 2);
        const givenUp = { ...failed, status: null, error: 'timeout', nextAttemptAt: null };
        assert.equal(await hooks().complete(claimed.id, claimed.claim, givenUp), true);
        const [logged] = await hooks().deliveries({ webhookId: hook.id, limit: 1 });
        assert.deepEqual(
          [logged?.lastStatus, logged?.lastError, logged?.nextAttemptAt, logged?.deliveredAt],
          [null, 'timeout', null, null],
        );
        assert.deepEqual(await claimOwn(store(), hook, now + 10 * minute), []);
      } finally {
        await hooks().remove(hook.id);
      }
    });

    it('disables a hook on request: its deliveries wait, new events skip it, until enabled', async () => {
      const type = unique('type');
      const hook = await newHook(store(), [type]);
      try {
        await hooks().enqueue(event(type));
        const [claimed] = (await claimOwn(store(), hook, now)) as [ClaimedDelivery];
        await hooks().complete(claimed.id, claimed.claim, {
          kind: 'failed',
          status: 410,
          error: null,
          nextAttemptAt: now + 1,
          disableHookAt: now + 1,
        });
        assert.equal((await hooks().list()).find((h) => h.id === hook.id)?.disabledAt, now + 1);
        assert.equal(await hooks().enqueue(event(type)), 0);
        assert.deepEqual(await claimOwn(store(), hook, now + minute), []);
        assert.equal(await hooks().enable(hook.id), true);
        assert.equal((await claimOwn(store(), hook, now + minute)).length, 1);
      } finally {
        await hooks().remove(hook.id);
      }
    });

    it('lists deliveries newest first, purges finished ones, and removes them with the hook', async () => {
      const type = unique('type');
      const hook = await newHook(store(), [type]);
      await hooks().enqueue(event(type, now));
      await hooks().enqueue(event(type, now + 1));
      const log = await hooks().deliveries({ webhookId: hook.id, limit: 10 });
      assert.deepEqual(
        log.map((d) => d.createdAt),
        [now + 1, now],
      );
      assert.equal((await hooks().deliveries({ webhookId: hook.id, limit: 1 })).length, 1);
      const claimed = (await claimOwn(store(), hook, now + 1)).find((d) => d.createdAt === now);
      assert.ok(claimed !== undefined);
      await hooks().complete(claimed.id, claimed.claim, {
        kind: 'delivered',
        status: 200,
        at: now,
      });
      assert.ok((await hooks().purgeFinishedBefore(now + 1)) >= 1);
      const left = await hooks().deliveries({ webhookId: hook.id, limit: 10 });
      assert.deepEqual(
        left.map((d) => d.createdAt),
        [now + 1],
      );
      await hooks().remove(hook.id);
      assert.deepEqual(await hooks().deliveries({ webhookId: hook.id, limit: 10 }), []);
    });

    it('changes the events of a hook and its disabledAt, and answers undefined for an unknown one', async () => {
      const type = unique('type');
      const hook = await newHook(store(), ['other.type']);
      try {
        const changed = await hooks().update(hook.id, { events: [type, '*'] });
        assert.deepEqual(changed, { ...hook, events: [type, '*'], disabledAt: null });
        assert.equal(await hooks().enqueue(event(type)), 1);
        const off = await hooks().update(hook.id, { disabledAt: now + minute });
        assert.equal(off?.disabledAt, now + minute);
        assert.deepEqual(off?.events, [type, '*'], 'the events are kept');
        assert.equal(await hooks().enqueue(event(type)), 0, 'a disabled hook is skipped');
        assert.equal((await hooks().update(hook.id, { disabledAt: null }))?.disabledAt, null);
        assert.deepEqual(
          await hooks().update(hook.id, {}),
          (await hooks().list()).find((h) => h.id === hook.id),
        );
        assert.equal(await hooks().update(unique('wh'), { events: ['*'] }), undefined);
      } finally {
        await hooks().remove(hook.id);
      }
    });

    it('pages deliveries after a position, newest first, ties broken by id', async () => {
      const type = unique('type');
      const hook = await newHook(store(), [type]);
      try {
        for (const at of [now, now, now + 1, now + 2, now + 2])
          await hooks().enqueue(event(type, at));
        const all = await hooks().deliveries({ webhookId: hook.id, limit: 10 });
        assert.equal(all.length, 5);
        const paged = [];
        let before: { createdAt: number; id: string } | undefined;
        for (;;) {
          const page = await hooks().deliveries({ webhookId: hook.id, limit: 2, before });
          paged.push(...page);
          const last = page.at(-1);
          if (page.length < 2 || last === undefined) break;
          before = { createdAt: last.createdAt, id: last.id };
        }
        assert.deepEqual(
          paged.map((d) => d.id),
          all.map((d) => d.id),
        );
      } finally {
        await hooks().remove(hook.id);
      }
    });
  });
}
