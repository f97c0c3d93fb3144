// The receiver docs/webhooks.md gives, run as written: real deliveries from the worker are
// answered 204 and handled; a forged signature and a replayed old timestamp are refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { codeBlocks, kindOf } from '../package/doc-blocks.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { eventually, fastRetries } from './receiver.ts';

const HANG_MS = 20_000;
const root = new URL('../../', import.meta.url).pathname;

describe('the receiver of docs/webhooks.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-receiver-'));
  let provider: Provider;
  let secret = '';
  let url = '';
  let output = '';
  let stop: () => void = () => undefined;

  before(async () => {
    const [block] = codeBlocks(root, 'docs/webhooks.md').filter((b) => kindOf(b) === 'receiver');
    assert.ok(block !== undefined && !block.fragment);
    assert.match(readFileSync(join(root, 'docs/webhooks.md'), 'utf8'), /node receiver\.mjs/);
    writeFileSync(join(dir, 'receiver.mjs'), block.code);
    // A secret as `webhooks add` makes them: the receiver is started with it, as the page says.
    secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' },
    });
    stop = () => child.kill('SIGKILL');
    url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        const match = /Receiving webhooks on (\S+)/.exec(output);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.on('close', () => reject(new Error(`the receiver ended: ${output}`)));
    });
  });
  after(async () => {
    await provider?.close();
    stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts real deliveries (204) and handles each once', async () => {
    // The hook to the running receiver, under the secret it was started with.
    const store = createSqliteStore({ path: ':memory:' });
    await store.webhooks.create({
      id: 'wh_docs',
      url,
      events: ['*'],
      secret,
      createdAt: Date.now(),
    });
    provider = createProvider({ store, ownsStore: true });
    provider.webhooks.startWorker(fastRetries);
    const client = await provider.clients.register({ name: 'Docs' });
    await provider.clients.setDisabled(client.key, true);
    await eventually(HANG_MS, async () =>
      (await provider.webhooks.deliveries()).every((d) => d.deliveredAt !== null),
    );
    const log = await provider.webhooks.deliveries();
    assert.deepEqual(
      log.map((d) => d.lastStatus),
      [204, 204],
    );
    await eventually(HANG_MS, () => /client\.disabled/.test(output));
    assert.match(output, new RegExp(`client\\.created \\{"clientKey":"${client.key}"`));
    assert.equal(output.match(/^client\.created /gm)?.length, 1);
  });

  it('refuses a forged signature and an old timestamp (400)', async () => {
    const body = JSON.stringify({ id: 'evt_x', type: 'client.deleted', created: 0, data: {} });
    const sign = (key: string, t: number) =>
      `t=${t},v1=${createHmac('sha256', key).update(`${t}.${body}`).digest('hex')}`;
    const now = Math.floor(Date.now() / 1000);
    for (const signature of [
      sign('whsec_not-the-secret', now),
      sign(secret, now - 3600),
      `t=${now},v1=`,
      '',
    ]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'latchkey-signature': signature, 'latchkey-delivery': 'd1' },
        body,
      });
      assert.equal(response.status, 400, signature);
    }
    const good = await fetch(url, {
      method: 'POST',
      headers: { 'latchkey-signature': sign(secret, now), 'latchkey-delivery': 'd1' },
      body,
    });
    assert.equal(good.status, 204);
  });
});
