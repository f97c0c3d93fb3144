// `latchkey clients add|update --scopes`: a client's scope ceiling (docs/cli.md,
// docs/decisions.md "Scope ceilings"), each name one of the operator's scopes, shown by
// `clients show` and `list`, and carried by export and import (a file from before ceilings
// imports as none).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { fileKeyring } from '../../src/store/key-file.ts';
import { startAdmin, type AdminWorld } from '../admin/support.ts';
import { workspace } from './run-cli.ts';

interface ClientJson {
  key: string;
  scopes: string[];
}

const space = workspace();
after(() => space.remove());

async function show(key: string): Promise<ClientJson> {
  return JSON.parse(await space.ok(['clients', 'show', key, '--json'])) as ClientJson;
}

describe('latchkey clients --scopes', () => {
  let client: ClientJson;
  before(async () => {
    client = JSON.parse(
      await space.ok(['clients', 'add', '--json', '--name', 'Reader', '--scopes', 'read']),
    ) as ClientJson;
  });

  it('registers a client with a ceiling, shown by show (JSON and text) and list', async () => {
    assert.deepEqual(client.scopes, ['read']);
    assert.deepEqual((await show(client.key)).scopes, ['read']);
    assert.match(await space.ok(['clients', 'show', client.key]), /^scopes: +read$/m);
    const listed = await space.ok(['clients', 'list']);
    assert.match(listed.split('\n')[0]!, /CALLBACKS +SCOPES +CREATED/);
    assert.match(listed, new RegExp(`^${client.key} .* read +\\d{4}-`, 'm'));
  });

  it('changes the ceiling with update (comma-separated), and removes it with --all-scopes', async () => {
    await space.ok(['clients', 'update', client.key, '--scopes', 'read,write']);
    assert.deepEqual((await show(client.key)).scopes, ['read', 'write']);
    await space.ok(['clients', 'update', client.key, '--scopes', 'write']);
    assert.deepEqual((await show(client.key)).scopes, ['write']);
    await space.ok(['clients', 'update', client.key, '--all-scopes']);
    assert.deepEqual((await show(client.key)).scopes, []);
    assert.match(await space.ok(['clients', 'show', client.key]), /^scopes: +- \(any/m);
  });

  it('refuses a scope the server does not know, naming it and the known ones', async () => {
    const added = await space.run(['clients', 'add', '--name', 'Greedy', '--scopes', 'read,admin']);
    assert.equal(added.code, 1);
    assert.match(
      added.stderr,
      /^latchkey: --scopes: Unknown scope: admin\. This server's scopes: read, write\./,
    );
    const updated = await space.run(['clients', 'update', client.key, '--scopes', 'admin']);
    assert.equal(updated.code, 1);
    assert.match(updated.stderr, /Unknown scope: admin/);
    assert.deepEqual((await show(client.key)).scopes, [], 'nothing changed');
  });

  it('refuses --scopes with --all-scopes, and an empty --scopes, as usage errors', async () => {
    const both = await space.run([
      'clients',
      'update',
      client.key,
      '--scopes',
      'read',
      '--all-scopes',
    ]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--scopes and --all-scopes do not go together/);
    const empty = await space.run(['clients', 'update', client.key, '--scopes', ',']);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /--scopes names at least one scope/);
  });

  it('exports the ceiling and imports it elsewhere; a record without scopes imports as none', async () => {
    await space.ok(['clients', 'update', client.key, '--scopes', 'write']);
    const exported = await space.ok(['export', '--include-secrets']);
    const record = exported
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((r) => r.kind === 'client' && r.key === client.key)!;
    assert.deepEqual(record.scopes, ['write']);
    const elsewhere = workspace();
    try {
      const file = join(elsewhere.dir, 'export.jsonl');
      writeFileSync(file, exported);
      await elsewhere.ok(['import', file, '--create-owners']);
      const moved = JSON.parse(
        await elsewhere.ok(['clients', 'show', client.key, '--json']),
      ) as ClientJson;
      assert.deepEqual(moved.scopes, ['write']);
      const old: Record<string, unknown> = { ...record, key: 'from-before-ceilings' };
      delete old.scopes;
      const oldFile = join(elsewhere.dir, 'old.jsonl');
      writeFileSync(oldFile, `${JSON.stringify(old)}\n`);
      await elsewhere.ok(['import', oldFile]);
      const imported = JSON.parse(
        await elsewhere.ok(['clients', 'show', 'from-before-ceilings', '--json']),
      ) as ClientJson;
      assert.deepEqual(imported.scopes, []);
      const unknown = join(elsewhere.dir, 'unknown.jsonl');
      writeFileSync(
        unknown,
        `${JSON.stringify({ ...record, key: 'unknown-scope', scopes: ['photos'] })}\n`,
      );
      const refused = await elsewhere.run(['import', unknown]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stdout + refused.stderr, /scopes.*Unknown scope: photos/s);
    } finally {
      elsewhere.remove();
    }
  });
});

describe('latchkey clients --scopes through the admin API (--server)', () => {
  const far = workspace();
  let world: AdminWorld;
  let remote: string[];
  let key: string;
  before(async () => {
    key = (JSON.parse(await far.ok(['clients', 'add', '--name', 'Far', '--json'])) as ClientJson)
      .key;
    const keyring = fileKeyring(join(dirname(far.database), 'latchkey.key'));
    world = await startAdmin(createSqliteStore({ path: far.database, keyring }));
    remote = ['--server', world.url, '--admin-token', world.tokens.operator];
  });
  after(async () => {
    await world?.close();
    far.remove();
  });

  it('sets and clears the ceiling remotely, and refuses an unknown scope naming it', async () => {
    await far.ok(['clients', 'update', key, '--scopes', 'read', ...remote]);
    assert.deepEqual((await world.provider.clients.get(key)).scopes, ['read']);
    const shown = JSON.parse(
      await far.ok(['clients', 'show', key, '--json', ...remote]),
    ) as ClientJson;
    assert.deepEqual(shown.scopes, ['read']);
    const refused = await far.run(['clients', 'update', key, '--scopes', 'admin', ...remote]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Unknown scope: admin/);
    await far.ok(['clients', 'update', key, '--all-scopes', ...remote]);
    assert.deepEqual((await world.provider.clients.get(key)).scopes, []);
  });
});
