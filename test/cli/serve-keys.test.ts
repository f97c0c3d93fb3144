// `latchkey serve` on a database whose secrets are sealed under a key it was not given (the
// key file beside the database lost, LATCHKEY_SECRET_KEY set to another key) refuses to start,
// exit 1, naming the key id and where to give the key; given the key, it starts. Without the
// refusal it would listen and answer every request reading those secrets with an error.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { bin, workspace } from './run-cli.ts';
import type { Workspace } from './run-cli.ts';

interface ServeOutcome {
  /** It printed that it listens (and was then stopped). */
  readonly started: boolean;
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs `serve` until it exits or says it listens (then stops it). */
function serve(space: Workspace, env: Record<string, string> = {}): Promise<ServeOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
      env: { ...space.env, ...env },
    });
    let started = false;
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (!started && chunk.includes('Latchkey listening on')) {
        started = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ started, code, stderr }));
  });
}

/** A client sealed under a key; returns the key's id. */
async function sealedClient(space: Workspace, env: Record<string, string> = {}): Promise<string> {
  await space.ok(['clients', 'add', '--name', 'Sealed', '--json'], { env });
  const status = JSON.parse(await space.ok(['keys', 'status', '--json'], { env })) as {
    current: string;
  };
  return status.current;
}

describe('latchkey serve without the key that sealed the stored secrets', () => {
  const spaces: Workspace[] = [];
  after(() => spaces.forEach((space) => space.remove()));
  const fresh = () => {
    const space = workspace();
    spaces.push(space);
    return space;
  };

  it('refuses to start when the key file beside the database is missing, and starts once it is back', async () => {
    const space = fresh();
    const keyId = await sealedClient(space);
    const keyFile = join(space.dir, 'latchkey.key');
    renameSync(keyFile, join(space.dir, 'backup.key'));

    const refused = await serve(space);
    assert.equal(refused.started, false, 'serve started without the key');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`sealed under key ${keyId}`));
    assert.match(refused.stderr, /put back the key file/);
    assert.match(refused.stderr, /LATCHKEY_SECRET_KEY/);
    assert.match(refused.stderr, /LATCHKEY_SECRET_KEY_FILE/);
    // keys status still opens the database, and names the key its rows need.
    const status = JSON.parse(await space.ok(['keys', 'status', '--json'])) as {
      missing: string[];
    };
    assert.deepEqual(status.missing, [keyId]);

    renameSync(join(space.dir, 'backup.key'), keyFile);
    const restored = await serve(space);
    assert.equal(restored.started, true, restored.stderr);
  });

  it('refuses to start when LATCHKEY_SECRET_KEY lacks the key that sealed them, and starts given both', async () => {
    const space = fresh();
    const old = Buffer.alloc(32, 1).toString('base64');
    const keyId = await sealedClient(space, { LATCHKEY_SECRET_KEY: old });
    const next = Buffer.alloc(32, 2).toString('base64');

    const refused = await serve(space, { LATCHKEY_SECRET_KEY: next });
    assert.equal(refused.started, false, 'serve started without the key');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`sealed under key ${keyId}`));
    assert.match(refused.stderr, /LATCHKEY_SECRET_KEY does not hold it/);

    const both = await serve(space, { LATCHKEY_SECRET_KEY: `${next},${old}` });
    assert.equal(both.started, true, both.stderr);
  });
});
