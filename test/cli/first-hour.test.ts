// What a new operator meets first with the real CLI: the key-backup warning of the embedded
// store repeats until `latchkey keys status --backed-up` says a backup holds the key (and again
// after a rotation), said once per start; a port in use names --port; gateway mode names its
// upstream; a reader closing the pipe early ends the command quietly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { bin, workspace } from './run-cli.ts';
import type { Workspace } from './run-cli.ts';

interface Started {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `serve` until it has logged where its key comes from, then stops it. */
function serveOnce(space: Workspace, args: readonly string[] = []): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
      // The log shown, as `npm start` shows it.
      env: { ...space.env, LATCHKEY_LOG_LEVEL: 'info' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (/"event":"secrets\.key"/.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (!/"event":"secrets\.key"/.test(stdout)) {
        reject(
          new Error(`serve ended (${code}) before saying where its key is:\n${stdout}${stderr}`),
        );
      } else resolve({ stdout, stderr });
    });
  });
}

/** The `secrets.key` log lines of one start. */
function keyLines(started: Started): { level: number; msg: string }[] {
  return started.stdout
    .split('\n')
    .filter((line) => line.includes('"event":"secrets.key"'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

const WARN = 40;

describe('the first hour with the CLI', () => {
  const spaces: Workspace[] = [];
  after(() => spaces.forEach((space) => space.remove()));
  const fresh = () => {
    const space = workspace();
    spaces.push(space);
    return space;
  };

  it('warns to back up the key file at every start until keys status --backed-up, and again after a rotation', async () => {
    const space = fresh();
    // Any command makes the key file (here one that registers a client); serve still warns.
    await space.ok(['clients', 'add', '--name', 'First']);
    for (let start = 0; start < 2; start++) {
      const lines = keyLines(await serveOnce(space));
      assert.equal(lines.length, 1, 'said once per start');
      assert.equal(lines[0]!.level, WARN);
      assert.match(lines[0]!.msg, /no backup is known to hold: back it up apart from the database/);
      assert.match(lines[0]!.msg, /npx latchkey keys status --backed-up/);
    }
    const marked = await space.run(['keys', 'status', '--backed-up']);
    assert.equal(marked.code, 0, marked.stderr);
    assert.match(marked.stderr, /recorded as backed up/);
    const quiet = keyLines(await serveOnce(space));
    assert.equal(quiet.length, 1);
    assert.notEqual(quiet[0]!.level, WARN, quiet[0]!.msg);

    const rotated = await space.ok(['keys', 'rotate']);
    assert.match(rotated, /keys status --backed-up/);
    assert.equal(keyLines(await serveOnce(space))[0]!.level, WARN);
  });

  it('says once on a pipe (the log), with no second plain copy on stderr', async () => {
    const started = await serveOnce(fresh());
    assert.equal(keyLines(started).length, 1);
    assert.doesNotMatch(started.stderr, /back it up/);
  });

  it('says it on stderr when the log level drops warnings', async () => {
    const space = fresh();
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env: space.env });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (/back it up/.test(stderr)) child.kill('SIGTERM');
    });
    await once(child, 'close');
    assert.match(stderr, /^Warning: secrets at rest sealed under a new key file beside/m);
  });

  it('names --port when the port is in use', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const { port } = taken.address() as AddressInfo;
      const result = await fresh().run(['serve', '--port', String(port)]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`port ${port}: it is in use`));
      assert.match(result.stderr, /choose another with --port/);
    } finally {
      taken.close();
    }
  });

  it('says gateway mode and the upstream in the banner', async () => {
    const started = await serveOnce(fresh(), ['--upstream', 'http://127.0.0.1:9/api']);
    assert.match(
      started.stdout,
      /^Gateway mode: requests outside Latchkey's own paths are verified by the gateway rules, then forwarded to http:\/\/127\.0\.0\.1:9\/api$/m,
    );
  });

  it('ends quietly when the reader closes the pipe early (latchkey request --help | head)', async () => {
    const child = spawn(process.execPath, [bin, 'request', '--help'], { env: fresh().env });
    // The reader is gone before the command writes its help.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(child, 'close')) as [number | null];
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
