// The access line as `latchkey serve` writes it: built by Latchkey in pino's own fields and
// order, buffered, and written out before the process exits on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { bin, workspace } from '../cli/run-cli.ts';
import { startWorld } from './world.ts';

function memoryStream(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
}

/** The access line of one request, from an app logging with `logger` options. */
async function accessLine(logger: Record<string, unknown>): Promise<Record<string, unknown>> {
  const lines: string[] = [];
  const world = await startWorld({ app: { logger: { ...logger, stream: memoryStream(lines) } } });
  try {
    const response = await world.app.inject({
      url: '/.well-known/oauth1-provider?page=2&oauth_token=t-8c1e',
      remoteAddress: '127.0.0.9',
    });
    assert.equal(response.statusCode, 200);
  } finally {
    await world.close();
  }
  const access = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry['msg'] === 'request completed');
  assert.equal(access.length, 1);
  return access[0]!;
}

describe('the access line', () => {
  it('is the line pino writes for the same request, field for field and in order', async () => {
    // { level, stream } is Latchkey's own logger, which builds the line itself; any further
    // option (here pino's default messageKey, spelled out) hands every line to pino.
    const built = await accessLine({ level: 'info' });
    const pinos = await accessLine({ level: 'info', messageKey: 'msg' });
    assert.deepEqual(Object.keys(built), Object.keys(pinos));
    const varying = new Set(['time', 'reqId', 'responseTime']);
    for (const key of Object.keys(pinos)) {
      if (varying.has(key)) assert.equal(typeof built[key], typeof pinos[key], key);
      else assert.deepEqual(built[key], pinos[key], key);
    }
    assert.deepEqual(built['req'], {
      method: 'GET',
      url: '/.well-known/oauth1-provider?page=2&oauth_token=[redacted]',
      remoteAddress: '127.0.0.9',
    });
  });

  it('follows a route’s own level as pino does: /healthz logs at debug, so at warn too', async () => {
    // /healthz, /readyz and /metrics log with their own level (logLevel 'debug'); with the
    // server at warn, pino still writes their access lines and no other.
    const logged = async (logger: Record<string, unknown>) => {
      const lines: string[] = [];
      const world = await startWorld({
        app: { logger: { ...logger, stream: memoryStream(lines) } },
      });
      try {
        assert.equal((await world.app.inject({ url: '/healthz' })).statusCode, 200);
        assert.equal(
          (await world.app.inject({ url: '/.well-known/oauth1-provider' })).statusCode,
          200,
        );
      } finally {
        await world.close();
      }
      return lines
        .map((line) => JSON.parse(line) as { msg?: string; req?: { url: string } })
        .filter((entry) => entry.msg === 'request completed')
        .map((entry) => entry.req?.url);
    };
    const pinos = await logged({ level: 'warn', messageKey: 'msg' });
    assert.deepEqual(pinos, ['/healthz']);
    assert.deepEqual(await logged({ level: 'warn' }), pinos);
  });

  it('`latchkey serve` writes its last lines before it exits on SIGTERM', async () => {
    const space = workspace();
    const file = join(space.dir, 'stdout.log');
    const out = openSync(file, 'w');
    try {
      const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
        env: { ...space.env, LATCHKEY_LOG_LEVEL: 'info' },
        stdio: ['ignore', out, 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      // The listening line is printed before any log line; wait for it on disk.
      let url: string | undefined;
      while (url === undefined) {
        const match = /^Latchkey listening on (http:\/\/\S+)$/m.exec(readFileSync(file, 'utf8'));
        if (match !== null) url = match[1];
        else if (child.exitCode !== null) assert.fail(`serve exited: ${stderr}`);
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (let n = 1; n <= 5; n++) {
        assert.equal((await fetch(`${url}/.well-known/oauth1-provider?n=${n}`)).status, 200);
      }
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      const urls = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{"level"'))
        .map((line) => (JSON.parse(line) as { req?: { url: string } }).req?.url);
      for (let n = 1; n <= 5; n++) assert.ok(urls.includes(`/.well-known/oauth1-provider?n=${n}`));
    } finally {
      closeSync(out);
      space.remove();
    }
  });
});
