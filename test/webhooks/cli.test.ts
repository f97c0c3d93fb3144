// `latchkey webhooks` and `latchkey serve` on the embedded store, as an operator runs them:
// the secret printed once and sealed at rest, the list and the delivery log, a bad URL
// refused; an event made by a CLI command delivered by `serve`; and a `serve` stopped with
// SIGTERM mid-delivery gives its delivery back, sent once by the next instance.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { bin, workspace } from '../cli/run-cli.ts';
import type { Workspace } from '../cli/run-cli.ts';
import { eventually, startReceiver } from './receiver.ts';
import type { Receiver } from './receiver.ts';

const HANG_MS = 20_000;

describe('latchkey webhooks', () => {
  let ws: Workspace;
  let receiver: Receiver;
  let secret = '';
  let id = '';

  before(async () => {
    ws = workspace();
    Object.assign(ws.env, {
      LATCHKEY_SECRET_KEY: Buffer.alloc(32, 5).toString('base64'),
      LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      LATCHKEY_WEBHOOKS_RETRY_BASE_MS: '20',
      LATCHKEY_WEBHOOKS_RETRY_MAX_DELAY_MS: '100',
      LATCHKEY_WEBHOOKS_POLL_INTERVAL_MS: '20',
      LATCHKEY_DRAIN_TIMEOUT_MS: '100',
      LATCHKEY_PORT: '0',
    });
    receiver = await startReceiver(() => [secret]);
  });
  after(async () => {
    await receiver.close();
    ws.remove();
  });

  it('refuses a URL that is not http(s), with the reason and no hook made', async () => {
    const result = await ws.run(['webhooks', 'add', 'file:///etc/passwd', '--events', '*']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /http or https, not file:/);
    assert.equal((await ws.ok(['webhooks', 'list'])).trim(), 'No webhooks.');
  });

  it('refuses a private address unless allowed', async () => {
    const result = await ws.run(['webhooks', 'add', 'http://10.0.0.8/in', '--events', '*'], {
      env: { LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: undefined },
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /webhooks\.allowPrivateAddresses/);
  });

  it('prints the secret once; lists the hook without it', async () => {
    const out = await ws.ok([
      'webhooks',
      'add',
      receiver.url,
      '--events',
      'client.created,client.disabled',
    ]);
    secret = /^secret:\s+(whsec_\S+)$/m.exec(out)?.[1] ?? '';
    id = /^Added webhook (wh_\S+)\.$/m.exec(out)?.[1] ?? '';
    assert.notEqual(secret, '');
    const listed = await ws.ok(['webhooks', 'list']);
    assert.match(listed, new RegExp(id));
    assert.match(listed, /client\.created,client\.disabled\s+enabled/);
    assert.equal(listed.includes(secret), false);
    const json = JSON.parse(await ws.ok(['webhooks', 'list', '--json'])) as unknown[];
    assert.equal(JSON.stringify(json).includes(secret), false);
    // Who added a hook is in the audit trail, with its id and never its secret.
    const audit = await ws.ok(['audit', '--json']);
    assert.match(audit, new RegExp(`webhook\\.created[\\s\\S]*${id}`));
    assert.equal(audit.includes(secret), false);
    // Sealed at rest under the configured key (latchkey keys counts its row).
    const status = await ws.ok(['keys', 'status', '--json']);
    assert.equal(status.includes(secret), false);
  });

  it('changes the events a hook receives, audited; refuses an unknown event or hook', async () => {
    const changed = await ws.ok([
      'webhooks',
      'update',
      id,
      '--events',
      'client.created,client.disabled,client.secret_rotated',
    ]);
    assert.match(
      changed,
      /now receives: client\.created,client\.disabled,client\.secret_rotated\.$/m,
    );
    assert.match(await ws.ok(['webhooks', 'list']), /client\.secret_rotated\s+enabled/);
    assert.match(await ws.ok(['audit', '--json']), new RegExp(`webhook\\.updated[\\s\\S]*${id}`));
    const unknown = await ws.run(['webhooks', 'update', id, '--events', 'no.such_event']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no\.such_event/);
    const missing = await ws.run(['webhooks', 'update', 'wh_none', '--events', '*']);
    assert.equal(missing.code, 1);
    // Back to what the tests after this one expect.
    await ws.ok(['webhooks', 'update', id, '--events', 'client.created,client.disabled']);
  });

  it('delivers what a CLI command changed through `serve`; a drained serve gives its delivery back', async () => {
    receiver.mode = 'hold';
    let server = await serve(ws);
    const added = await ws.ok(['clients', 'add', '--name', 'Printer']);
    const key = /^key:\s+(\S+)$/m.exec(added)?.[1];
    await eventually(HANG_MS, () => receiver.held.size === 1);
    // SIGTERM mid-delivery: the drain gives the claimed delivery back, its attempt uncounted.
    await server.stop();
    const log = JSON.parse(await ws.ok(['webhooks', 'deliveries', id, '--json'])) as Array<{
      state: string;
      attempts: number;
      event: string;
    }>;
    assert.deepEqual(
      log.map((d) => [d.event, d.state, d.attempts]),
      [['client.created', 'pending', 0]],
    );

    receiver.mode = 'accept';
    server = await serve(ws);
    try {
      await eventually(HANG_MS, () => receiver.accepted.size === 1);
      const [entry] = receiver.received.slice(-1);
      assert.equal(entry?.signatureValid, true);
      assert.equal(entry?.body.data.clientKey, key);
      const table = await ws.ok(['webhooks', 'deliveries']);
      assert.match(table, /client\.created\s+delivered\s+1\s+200/);
    } finally {
      await server.stop();
    }
  });

  it('logs a failed attempt (the status, never the secret) and retries it', async () => {
    receiver.mode = 500;
    const server = await serve(ws, { LATCHKEY_LOG_LEVEL: 'warn' });
    try {
      const added = await ws.ok(['clients', 'add', '--name', 'Scanner']);
      const key = /^key:\s+(\S+)$/m.exec(added)?.[1] ?? '';
      await ws.ok(['clients', 'disable', key]);
      // Tried again: two failed attempts logged.
      await eventually(
        HANG_MS,
        () => (server.output().match(/webhook not delivered/g)?.length ?? 0) >= 2,
      );
      const line = server
        .output()
        .split('\n')
        .find((text) => text.includes('webhook not delivered'));
      const logged = JSON.parse(line ?? '{}') as Record<string, unknown>;
      assert.equal(logged.status, 500);
      assert.equal(logged.webhookId, id);
      assert.equal(server.output().includes(secret), false);
    } finally {
      receiver.mode = 'accept';
      await server.stop();
    }
  });

  it('removes the hook and its log', async () => {
    assert.match(await ws.ok(['webhooks', 'remove', id]), /Removed webhook/);
    assert.match(await ws.ok(['audit', '--json']), /webhook\.removed/);
    assert.equal((await ws.ok(['webhooks', 'deliveries'])).trim(), 'No deliveries.');
    const again = await ws.run(['webhooks', 'remove', id]);
    assert.equal(again.code, 1);
  });
});

/** `latchkey serve` on the workspace; `stop` sends SIGTERM and waits for the exit. */
async function serve(
  ws: Workspace,
  env: Record<string, string> = {},
): Promise<{ stop(): Promise<void>; output(): string }> {
  const child = spawn(process.execPath, [bin, 'serve'], { env: { ...ws.env, ...env } });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (/^Latchkey listening on /m.test(output)) resolve();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    void exited.then(() => reject(new Error(`latchkey serve ended: ${output}`)));
  });
  return {
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    },
  };
}
