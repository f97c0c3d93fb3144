// `latchkey keys`: the embedded default seals with a key file beside the database (created
// 0600 on first use); `rotate` makes a new current key, re-seals every secret under it and
// says the old one is no longer needed; `prune` removes it, and the secrets still open.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

interface Status {
  source: string;
  keyFile: string | null;
  current: string;
  rows: Record<string, number>;
  unused: string[];
  previous?: string;
  resealed?: number;
}

function storedSecrets(): string[] {
  const db = new DatabaseSync(space.database, { readOnly: true });
  try {
    return db
      .prepare('SELECT secret FROM clients')
      .all()
      .map((row) => String(row.secret));
  } finally {
    db.close();
  }
}

describe('latchkey keys', () => {
  it('seals with a key file beside the SQLite database, rotates it and prunes the old key', async () => {
    const added = JSON.parse(await space.ok(['clients', 'add', '--name', 'Sealed', '--json'])) as {
      key: string;
      secret: string;
    };
    const keyFile = join(space.dir, 'latchkey.key');
    assert.equal((statSync(keyFile).mode & 0o777).toString(8), '600');
    assert.equal(storedSecrets().includes(added.secret), false);

    const before = JSON.parse(await space.ok(['keys', 'status', '--json'])) as Status;
    assert.equal(before.source, 'beside-database');
    assert.deepEqual(before.rows, { [before.current]: 1 });

    const rotated = JSON.parse(await space.ok(['keys', 'rotate', '--json'])) as Status;
    assert.equal(rotated.previous, before.current);
    assert.notEqual(rotated.current, before.current);
    assert.equal(rotated.resealed, 1);
    assert.deepEqual(rotated.rows, { [rotated.current]: 1 });
    assert.deepEqual(rotated.unused, [before.current]);

    assert.match(await space.ok(['keys', 'prune']), new RegExp(`Removed ${before.current}`));
    const file = JSON.parse(readFileSync(keyFile, 'utf8')) as { keys: string[] };
    assert.equal(file.keys.length, 1);
    // The client is still read: its secret opens under the remaining key.
    const shown = await space.ok(['clients', 'show', added.key, '--json']);
    assert.equal((JSON.parse(shown) as { key: string }).key, added.key);
    const listed = JSON.parse(await space.ok(['keys', 'status', '--json'])) as Status;
    assert.deepEqual(listed.rows, { [rotated.current]: 1 });
  });

  it('seals what an import writes and opens it again for an export', async () => {
    const other = workspace();
    try {
      const example = fileURLToPath(new URL('../../docs/import-example.jsonl', import.meta.url));
      await other.ok(['import', example, '--create-owners']);
      const db = new DatabaseSync(other.database, { readOnly: true });
      const stored = ['clients', 'token_credentials']
        .flatMap((table) => db.prepare(`SELECT secret FROM ${table}`).all())
        .map((row) => String(row.secret))
        .join('\n');
      db.close();
      const exported = await other.ok(['export', '--include-secrets']);
      for (const secret of ['hmac secret+with/odd&chars~', 'tök€n s/cr+t=', 'bob secret & more']) {
        assert.equal(stored.includes(secret), false, 'an imported secret is in clear');
        assert.equal(exported.includes(JSON.stringify(secret)), true, 'the export lost a secret');
      }
    } finally {
      other.remove();
    }
  });

  it('refuses to rotate a key given in the environment, and says what to do', async () => {
    const result = await space.run(['keys', 'rotate'], {
      env: { LATCHKEY_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') },
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /LATCHKEY_SECRET_KEY/);
  });
});
