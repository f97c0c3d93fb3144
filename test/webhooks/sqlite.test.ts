// Webhooks on the embedded store: a real receiver on 127.0.0.1 checks every signature; the
// provider's changes arrive as signed events, once each; with the receiver down for a while,
// every event arrives after it comes back, once. The retry clock is driven by configuration
// (a short backoff), never by waiting a fixed time.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider, WebhookWorker } from '../../src/provider/index.ts';
import { openStore } from '../../src/store/index.ts';
import { eventually, fastRetries, startReceiver } from './receiver.ts';
import type { Receiver } from './receiver.ts';

const HANG_MS = 20_000;
const SECRET_KEY = Buffer.alloc(32, 9).toString('base64');

describe('webhooks on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-webhooks-'));
  const path = join(dir, 'latchkey.db');
  let provider: Provider;
  let worker: WebhookWorker;
  let receiver: Receiver;
  let secret = '';
  let hookId = '';

  before(async () => {
    const store = await openStore(path, { secretKey: SECRET_KEY, checkpointIntervalMs: 0 });
    provider = createProvider({ store, ownsStore: true });
    receiver = await startReceiver(() => [secret]);
    const added = await provider.webhooks.add(receiver.url, ['*'], { allowPrivateAddresses: true });
    secret = added.secret;
    hookId = added.hook.id;
    worker = provider.webhooks.startWorker(fastRetries);
  });
  after(async () => {
    await worker.stop(0);
    await provider.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends each change as a signed event, once, with a delivery id per delivery', async () => {
    const client = await provider.clients.register({
      name: 'Printer',
      website: 'https://p.example',
    });
    await provider.clients.setDisabled(client.key, true);
    await provider.clients.setDisabled(client.key, false);
    const owner = await provider.owners.create('alice', 'a long enough password');
    const token = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    await provider.tokens.revoke(token.token);
    const expected = [
      'client.created',
      'client.disabled',
      'client.enabled',
      'owner.created',
      'token.created',
      'token.revoked',
    ];
    await eventually(HANG_MS, () => receiver.accepted.size === expected.length);

    assert.deepEqual(receiver.received.map((r) => r.body.type).sort(), [...expected].sort());
    for (const entry of receiver.received) {
      assert.equal(entry.signatureValid, true, `signature of ${entry.body.type}`);
      assert.equal(entry.eventType, entry.body.type);
      assert.match(entry.body.id, /^evt_/);
      assert.equal(typeof entry.body.created, 'number');
    }
    assert.equal(new Set(receiver.received.map((r) => r.deliveryId)).size, expected.length);
    assert.deepEqual(
      [...receiver.accepted.values()],
      expected.map(() => 1),
    );
    const revoked = receiver.received.find((r) => r.body.type === 'token.revoked');
    assert.deepEqual(revoked?.body.data, {
      token: token.token,
      ownerId: owner.id,
      clientKey: client.key,
    });
    // No secret leaves the server: neither the client's nor the token's.
    const bodies = JSON.stringify(receiver.received.map((r) => r.body));
    assert.equal(bodies.includes(client.secret), false);
    assert.equal(bodies.includes(token.secret), false);

    const log = await provider.webhooks.deliveries({ webhookId: hookId });
    assert.equal(log.length, expected.length);
    for (const delivery of log) {
      assert.equal(delivery.lastStatus, 200);
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.nextAttemptAt, null);
      assert.notEqual(delivery.deliveredAt, null);
    }
  });

  it('delivers every event once after the receiver was down for a while', async () => {
    const before = receiver.received.length;
    await receiver.down();
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      keys.push((await provider.clients.register({ name: `App ${i}` })).key);
    }
    // Down until every delivery has failed at least twice: retried, not lost.
    await eventually(HANG_MS, async () => {
      const pending = (await provider.webhooks.deliveries({ webhookId: hookId })).filter(
        (d) => d.deliveredAt === null,
      );
      return pending.length === keys.length && pending.every((d) => d.attempts >= 2);
    });
    assert.equal(receiver.received.length, before);
    await receiver.up();
    await eventually(HANG_MS, async () =>
      (await provider.webhooks.deliveries({ webhookId: hookId })).every(
        (d) => d.deliveredAt !== null,
      ),
    );

    const arrived = receiver.received.slice(before);
    assert.deepEqual(arrived.map((r) => r.body.data.clientKey).sort(), [...keys].sort());
    for (const entry of arrived) {
      assert.equal(entry.signatureValid, true);
      assert.equal(receiver.accepted.get(entry.body.id), 1);
    }
  });

  it('keeps the signing secret sealed at rest, never listed', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const row = db.prepare('SELECT secret, secret_key_id FROM webhooks WHERE id = ?').get(hookId);
      assert.notEqual(row?.secret_key_id, null);
      assert.equal(String(row?.secret).includes(secret.slice(6)), false);
    } finally {
      db.close();
    }
    const listed = await provider.webhooks.list();
    assert.equal(JSON.stringify(listed).includes(secret), false);
    assert.equal((await provider.secrets.countByKey()).get('') ?? 0, 0);
  });
});
