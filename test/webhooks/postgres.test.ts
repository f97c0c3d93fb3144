// Webhooks on PostgreSQL + Redis with several instances: claims taken at once by two
// connections never overlap (FOR UPDATE SKIP LOCKED) and a claim whose lease ran out is taken
// again; and two real `latchkey serve` processes, one killed with SIGKILL while a receiver
// holds its deliveries, deliver every event exactly once between them (the receiver dedupes
// nothing: it counts event ids it answered 2xx).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import type { Store } from '../../src/store/index.ts';
import { postgresUrl, redisUrl, servicesSkip, useDeployment } from '../ops/support.ts';
import { deploymentOf } from '../multi-instance/support.ts';
import type { Deployment, Instance } from '../multi-instance/support.ts';
import { eventually, startReceiver } from './receiver.ts';
import type { Receiver } from './receiver.ts';

const skip = await servicesSkip();
const HANG_MS = 30_000;

describe('webhook claims on PostgreSQL', { skip }, () => {
  const names = useDeployment();
  let first: Store;
  let second: Store;
  let provider: Provider;

  before(async () => {
    first = await names.plain();
    second = await names.plain();
    provider = createProvider({ store: first });
    await provider.webhooks.add('https://hooks.example/in', ['client.created']);
    for (let i = 0; i < 30; i++) await provider.clients.register({ name: `App ${i}` });
    await provider.webhooks.settled();
  });

  it('two instances claiming at once take different deliveries, each once', async () => {
    const now = Date.now();
    const claimed: string[] = [];
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([
        first.webhooks.claim(now, 60_000, 7),
        second.webhooks.claim(now, 60_000, 7),
      ]);
      claimed.push(...a.map((d) => d.id), ...b.map((d) => d.id));
    }
    assert.equal(claimed.length, 30);
    assert.equal(new Set(claimed).size, claimed.length);
    // Every one is held: none is due again while its lease lasts.
    assert.deepEqual(await first.webhooks.claim(now + 59_999, 60_000, 100), []);
  });

  it('takes a delivery again once its lease ran out; the old claim then changes nothing', async () => {
    const now = Date.now();
    const [held] = await first.webhooks.claim(now + 120_000, 1000, 1);
    assert.ok(held !== undefined);
    const retaken = await second.webhooks.claim(now + 121_001, 1000, 100);
    assert.ok(retaken.some((d) => d.id === held.id));
    const stale = await first.webhooks.complete(held.id, held.claim, {
      kind: 'delivered',
      status: 200,
      at: now,
    });
    assert.equal(stale, false);
    const again = retaken.find((d) => d.id === held.id)!;
    assert.equal(again.attempts, held.attempts + 1);
    assert.equal(
      await second.webhooks.complete(again.id, again.claim, {
        kind: 'delivered',
        status: 200,
        at: now,
      }),
      true,
    );
  });
});

describe('webhooks from two `latchkey serve` instances, one killed mid-delivery', { skip }, () => {
  const names = useDeployment();
  let deployment: Deployment;
  let receiver: Receiver;
  let secret = '';
  let provider: Provider;

  before(async () => {
    receiver = await startReceiver(() => [secret]);
    names.track({ close: () => receiver.close() });
    deployment = deploymentOf({ postgresUrl, redisUrl, ...names });
    Object.assign(deployment.env, {
      LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      // Retries within milliseconds; an attempt waits 1 s at most, a claim lasts 3 s.
      LATCHKEY_WEBHOOKS_RETRY_BASE_MS: '20',
      LATCHKEY_WEBHOOKS_RETRY_MAX_DELAY_MS: '200',
      LATCHKEY_WEBHOOKS_POLL_INTERVAL_MS: '50',
      LATCHKEY_WEBHOOKS_TIMEOUT_MS: '1000',
      LATCHKEY_WEBHOOKS_LEASE_MS: '3000',
    });
    const migrated = await deployment.cli(['migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
    names.track({ close: async () => deployment.stopAll() });
    const added = await deployment.cli(['webhooks', 'add', receiver.url, '--events', '*']);
    assert.equal(added.code, 0, added.stderr);
    secret = /^secret:\s+(whsec_\S+)$/m.exec(added.stdout)?.[1] ?? '';
    assert.notEqual(secret, '');
    provider = createProvider({ store: await names.open() });
  });

  it('delivers every event exactly once', async () => {
    receiver.mode = 'hold';
    const doomed: Instance = await deployment.start();
    const keys: string[] = [];
    for (let i = 0; i < 12; i++)
      keys.push((await provider.clients.register({ name: `C${i}` })).key);
    await provider.webhooks.settled();
    // The first instance is mid-delivery: the receiver holds what it sent, unanswered.
    await eventually(HANG_MS, () => receiver.held.size >= 1);
    const heldByDoomed = receiver.received.map((r) => r.body.id);
    await deployment.start();
    await doomed.kill9();
    receiver.mode = 'accept';

    await eventually(HANG_MS, () => receiver.accepted.size === keys.length);
    await eventually(HANG_MS, async () =>
      (await provider.webhooks.deliveries()).every((d) => d.deliveredAt !== null),
    );
    for (const entry of receiver.received) assert.equal(entry.signatureValid, true);
    assert.deepEqual(
      [...receiver.accepted.values()],
      keys.map(() => 1),
    );
    const clients = new Set(receiver.received.map((r) => r.body.data.clientKey));
    assert.deepEqual([...clients].sort(), [...keys].sort());
    // What the killed instance held, unanswered, was sent again by the survivor (after the
    // lease) and accepted once.
    assert.ok(heldByDoomed.length >= 1);
    for (const id of heldByDoomed) {
      assert.ok(receiver.received.filter((r) => r.body.id === id).length >= 2);
      assert.equal(receiver.accepted.get(id), 1);
    }
  });
});
