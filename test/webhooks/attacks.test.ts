// Webhooks attacked: a hook URL with a bad scheme, credentials or a private address is
// refused (server-side request forgery, docs/decisions.md); a name or address refused at
// delivery reaches nothing; no redirect is followed; a receiver that never answers does not
// hold the worker; an endless answer is not read whole; 410 Gone disables the hook until it
// is enabled.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createProvider, InputError } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { eventually, fastRetries, startReceiver } from './receiver.ts';
import type { Receiver } from './receiver.ts';

const HANG_MS = 20_000;

async function listen(
  handler: http.RequestListener,
): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

function fresh(): Provider {
  return createProvider({ store: createSqliteStore({ path: ':memory:' }), ownsStore: true });
}

describe('webhook URLs refused when added', () => {
  const provider = fresh();
  after(() => provider.close());

  for (const url of [
    'ftp://files.example/hook',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'gopher://example.com/',
    'data:text/plain,hi',
    'https://user:pass@hooks.example/',
    '/relative/hook',
    `https://hooks.example/${'a'.repeat(3000)}`,
  ]) {
    it(`refuses ${url.slice(0, 40)}`, async () => {
      await assert.rejects(provider.webhooks.add(url, ['*']), InputError);
    });
  }

  for (const url of [
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'http://api.localhost/hook',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
    'http://[fd00::1]/hook',
  ]) {
    it(`refuses the private address of ${url} unless allowed`, async () => {
      await assert.rejects(provider.webhooks.add(url, ['*']), /private address/);
      const { hook } = await provider.webhooks.add(url, ['*'], { allowPrivateAddresses: true });
      await provider.webhooks.remove(hook.id);
    });
  }

  it('refuses an unknown event name and an empty list', async () => {
    await assert.rejects(
      provider.webhooks.add('https://hooks.example/', ['grant.stolen']),
      /Unknown event/,
    );
    await assert.rejects(provider.webhooks.add('https://hooks.example/', [' ']), InputError);
  });

  it('accepts a public https URL', async () => {
    const { hook, secret } = await provider.webhooks.add('https://hooks.example/in', [
      'grant.created',
    ]);
    assert.match(secret, /^whsec_/);
    assert.deepEqual(hook.events, ['grant.created']);
  });
});

describe('webhook deliveries under attack', () => {
  let provider: Provider;
  let receiver: Receiver;
  let secret = '';

  before(async () => {
    provider = fresh();
    receiver = await startReceiver(() => [secret]);
  });
  after(async () => {
    await provider.close();
    await receiver.close();
  });

  it('sends nothing to a loopback name or address when private addresses are not allowed', async () => {
    const byName = receiver.url.replace('127.0.0.1', 'localhost');
    const hooks = [
      await provider.webhooks.add(byName, ['client.created'], { allowPrivateAddresses: true }),
      await provider.webhooks.add(receiver.url, ['client.created'], {
        allowPrivateAddresses: true,
      }),
    ];
    const worker = provider.webhooks.startWorker({ ...fastRetries, allowPrivateAddresses: false });
    try {
      await provider.clients.register({ name: 'Probe' });
      await eventually(HANG_MS, async () =>
        (await provider.webhooks.deliveries()).every(
          (d) => d.attempts >= 1 && d.nextAttemptAt !== null && d.lastError !== null,
        ),
      );
      const log = await provider.webhooks.deliveries();
      assert.equal(log.length, 2);
      for (const delivery of log) assert.equal(delivery.lastError, 'ADDRESS_NOT_ALLOWED');
      assert.equal(receiver.received.length, 0);
    } finally {
      await worker.stop(0);
      for (const { hook } of hooks) await provider.webhooks.remove(hook.id);
    }
  });

  it('a receiver that never answers does not hold the worker', async () => {
    const silent = await listen(() => undefined);
    const quiet = await provider.webhooks.add(silent.url, ['client.created'], {
      allowPrivateAddresses: true,
    });
    const good = await provider.webhooks.add(receiver.url, ['client.created'], {
      allowPrivateAddresses: true,
    });
    secret = good.secret;
    // One delivery at a time: had the silent receiver held it, the good one would wait.
    const worker = provider.webhooks.startWorker({
      ...fastRetries,
      concurrency: 1,
      timeoutMs: 300,
    });
    try {
      const client = await provider.clients.register({ name: 'Watched' });
      await eventually(HANG_MS, async () => {
        const [stuck] = await provider.webhooks.deliveries({ webhookId: quiet.hook.id });
        return receiver.accepted.size === 1 && (stuck?.attempts ?? 0) >= 2;
      });
      assert.equal(receiver.received[0]?.body.data.clientKey, client.key);
      const [stuck] = await provider.webhooks.deliveries({ webhookId: quiet.hook.id });
      assert.equal(stuck?.lastError, 'timeout');
      assert.equal(stuck?.deliveredAt, null);
    } finally {
      await worker.stop(0);
      await closeServer(silent.server);
      await provider.webhooks.remove(quiet.hook.id);
      await provider.webhooks.remove(good.hook.id);
    }
  });

  it('follows no redirect: a 3xx is a failed attempt, its target reached by nothing', async () => {
    const bouncer = await listen((request, response) => {
      request.resume();
      response.writeHead(307, { location: receiver.url }).end();
    });
    const { hook } = await provider.webhooks.add(bouncer.url, ['client.created'], {
      allowPrivateAddresses: true,
    });
    const before = receiver.received.length;
    const worker = provider.webhooks.startWorker(fastRetries);
    try {
      await provider.clients.register({ name: 'Bounced' });
      await eventually(HANG_MS, async () => {
        const [delivery] = await provider.webhooks.deliveries({ webhookId: hook.id });
        return (delivery?.attempts ?? 0) >= 2;
      });
      const [delivery] = await provider.webhooks.deliveries({ webhookId: hook.id });
      assert.equal(delivery?.lastStatus, 307);
      assert.equal(delivery?.deliveredAt, null);
      assert.equal(receiver.received.length, before);
    } finally {
      await worker.stop(0);
      await closeServer(bouncer.server);
      await provider.webhooks.remove(hook.id);
    }
  });

  it('does not read an endless answer whole', async () => {
    let written = 0;
    let cut: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (cut = resolve));
    const endless = await listen((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) written += chunk.length;
      };
      response.on('drain', pump);
      response.on('close', () => cut());
      pump();
    });
    const { hook } = await provider.webhooks.add(endless.url, ['client.created'], {
      allowPrivateAddresses: true,
    });
    const worker = provider.webhooks.startWorker(fastRetries);
    try {
      await provider.clients.register({ name: 'Flood' });
      await ended;
      await eventually(HANG_MS, async () => {
        const [delivery] = await provider.webhooks.deliveries({ webhookId: hook.id });
        return delivery?.deliveredAt !== null && delivery?.deliveredAt !== undefined;
      });
      // The answer's status counts; its body was abandoned after a few kilobytes, with what
      // the sockets buffer: far from the endless stream the receiver would send.
      assert.ok(written < 32 * 1024 * 1024, `${written} bytes were written`);
      const [delivery] = await provider.webhooks.deliveries({ webhookId: hook.id });
      assert.equal(delivery?.lastStatus, 200);
    } finally {
      await worker.stop(0);
      await closeServer(endless.server);
      await provider.webhooks.remove(hook.id);
    }
  });

  it('410 Gone disables the hook; enabled again, its waiting delivery is sent', async () => {
    const { hook, secret: hookSecret } = await provider.webhooks.add(
      receiver.url,
      ['client.created'],
      {
        allowPrivateAddresses: true,
      },
    );
    secret = hookSecret;
    receiver.mode = 410;
    const before = receiver.received.length;
    const worker = provider.webhooks.startWorker(fastRetries);
    try {
      const client = await provider.clients.register({ name: 'Gone' });
      await eventually(HANG_MS, async () =>
        (await provider.webhooks.list()).some((h) => h.id === hook.id && h.disabledAt !== null),
      );
      // Disabled: a later event is not queued for it, and nothing more is sent.
      await provider.clients.register({ name: 'Later' });
      await provider.webhooks.settled();
      assert.equal((await provider.webhooks.deliveries({ webhookId: hook.id })).length, 1);
      receiver.mode = 'accept';
      await provider.webhooks.enable(hook.id);
      await eventually(HANG_MS, async () => {
        const [delivery] = await provider.webhooks.deliveries({ webhookId: hook.id });
        return delivery?.deliveredAt !== null && delivery?.deliveredAt !== undefined;
      });
      const arrived = receiver.received.slice(before);
      assert.deepEqual(
        arrived.map((r) => r.body.data.clientKey),
        [client.key, client.key],
      );
      assert.equal(receiver.accepted.get(arrived[0]!.body.id), 1);
    } finally {
      await worker.stop(0);
      receiver.mode = 'accept';
      await provider.webhooks.remove(hook.id);
    }
  });
});
