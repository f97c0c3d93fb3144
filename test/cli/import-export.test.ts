// `latchkey import` and `latchkey export` (docs/import.md) on the embedded store: a lossless
// round trip of every record kind (owners with their ids), idempotent re-runs, line-numbered
// errors with nothing written, conflicts reported unless --update, dry runs that write nothing.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { workspace } from './run-cli.ts';
import type { Workspace } from './run-cli.ts';

const EXAMPLE = fileURLToPath(new URL('../../docs/import-example.jsonl', import.meta.url));
const exampleLines = readFileSync(EXAMPLE, 'utf8').split('\n').filter(Boolean);
/** The example's clients and tokens without its owner records: as another provider has them. */
const credentialLines = exampleLines.filter((line) => !line.startsWith('{"kind":"owner"'));

function sorted(text: string): string[] {
  return text.split('\n').filter(Boolean).sort();
}

function withFile(space: Workspace, name: string, lines: readonly string[]): string {
  const file = join(space.dir, name);
  writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
  return file;
}

/** The example with one record's fields changed. */
function edited(key: string, changes: Record<string, unknown>): string[] {
  return exampleLines.map((line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    return record.key === key || record.token === key
      ? JSON.stringify({ ...record, ...changes })
      : line;
  });
}

async function imported(): Promise<Workspace> {
  const space = workspace();
  await space.ok(['import', EXAMPLE, '--create-owners']);
  return space;
}

describe('latchkey import and export: the round trip', () => {
  it('exports what it imported byte for byte (every record kind), modulo order', async () => {
    const space = await imported();
    try {
      const exported = await space.ok(['export', '--include-secrets']);
      assert.deepEqual(sorted(exported), [...exampleLines].sort());
    } finally {
      space.remove();
    }
  });

  it('takes rsaPublicKey, the former name of publicKey, from files exported before', async () => {
    const space = workspace();
    try {
      const before = exampleLines.map((line) => line.replace('"publicKey":', '"rsaPublicKey":'));
      assert.ok(before.some((line) => line.includes('"rsaPublicKey":"-----BEGIN CERTIFICATE')));
      await space.ok(['import', withFile(space, 'before.jsonl', before), '--create-owners']);
      const exported = await space.ok(['export', '--include-secrets']);
      assert.deepEqual(sorted(exported), [...exampleLines].sort());
    } finally {
      space.remove();
    }
  });

  it('refuses a client record giving both publicKey and rsaPublicKey, by line', async () => {
    const space = workspace();
    try {
      const both = edited('tv-app', { rsaPublicKey: null });
      const result = await space.run(['import', withFile(space, 'both.jsonl', both)]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /publicKey or its former name rsaPublicKey, not both/);
    } finally {
      space.remove();
    }
  });

  it('changes nothing when run again, and says every record is unchanged', async () => {
    const space = await imported();
    try {
      const before = await space.ok(['export', '--include-secrets']);
      const again = await space.run(['import', EXAMPLE, '--json']);
      assert.equal(again.code, 0, again.stderr);
      const report = JSON.parse(again.stdout) as {
        clients: { unchanged: number; created: number };
        tokens: { unchanged: number; created: number };
        changes: unknown[];
      };
      assert.deepEqual(
        [
          report.clients.unchanged,
          report.tokens.unchanged,
          report.clients.created,
          report.tokens.created,
        ],
        [3, 6, 0, 0],
      );
      assert.deepEqual(report.changes, []);
      assert.equal(await space.ok(['export', '--include-secrets']), before);
    } finally {
      space.remove();
    }
  });

  it('leaves secrets out without --include-secrets, and such an export re-imports as unchanged', async () => {
    const space = await imported();
    try {
      const exported = await space.ok(['export']);
      assert.ok(!exported.includes('hmac secret+with/odd&chars~'));
      assert.ok(!exported.includes('tök€n s/cr+t='));
      assert.match(exported, /"key":"tv-app","secret":null,/); // no secret at all: says so
      const file = withFile(space, 'public.jsonl', exported.split('\n').filter(Boolean));
      const again = await space.run(['import', file]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /Tokens: +0 created, 0 updated, 6 unchanged/);
    } finally {
      space.remove();
    }
  });

  it('writes an export with secrets to a file only its owner can read', async () => {
    const space = await imported();
    try {
      const file = join(space.dir, 'backup.jsonl');
      const result = await space.run(['export', '--include-secrets', '--output', file]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /Exported 6 owner\(s\), 3 client\(s\) and 6 token\(s\)/);
      const { statSync } = await import('node:fs');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.deepEqual(sorted(readFileSync(file, 'utf8')), [...exampleLines].sort());
    } finally {
      space.remove();
    }
  });

  it('replaces an existing world-readable file with one only its owner can read', async () => {
    const space = await imported();
    try {
      const file = join(space.dir, 'old-backup.jsonl');
      writeFileSync(file, 'an older export\n', { mode: 0o644 });
      chmodSync(file, 0o644); // whatever the umask made of it
      const result = await space.run(['export', '--include-secrets', '--output', file]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.deepEqual(sorted(readFileSync(file, 'utf8')), [...exampleLines].sort());
      assert.deepEqual(
        readdirSync(space.dir).filter((name) => name.includes('old-backup')),
        ['old-backup.jsonl'],
        'no staging file is left behind',
      );
    } finally {
      space.remove();
    }
  });
});

describe('latchkey import: what it refuses and reports', () => {
  it('names the line of each bad record and writes nothing', async () => {
    const space = workspace();
    try {
      const file = withFile(space, 'bad.jsonl', [
        exampleLines[0]!,
        '',
        '{"kind":"client", not json',
        JSON.stringify({ kind: 'client', key: 'k', name: 'N', colour: 'blue' }),
        JSON.stringify({ kind: 'client', key: 'tab\there', name: 'N', secret: 's' }),
        JSON.stringify({
          kind: 'token',
          token: 't',
          secret: 's',
          client: 'nowhere',
          owner: { username: 'alice' },
        }),
        JSON.stringify({
          kind: 'token',
          token: 't2',
          secret: '',
          client: 'legacy-printer',
          owner: { username: 'alice' },
        }),
        JSON.stringify({
          kind: 'token',
          token: 't3',
          secret: 's',
          client: 'legacy-printer',
          owner: { username: 'alice' },
          issuedAt: 1714564800000,
        }),
      ]);
      const result = await space.run(['import', file, '--create-owners']);
      assert.equal(result.code, 1);
      const lines = result.stderr.split('\n');
      assert.ok(
        lines.some((l) => /^latchkey: line 3: not a JSON object/.test(l)),
        result.stderr,
      );
      assert.ok(lines.some((l) => /^latchkey: line 4: colour: Unknown field "colour"/.test(l)));
      assert.ok(
        lines.some((l) =>
          /^latchkey: line 5: key: A client key is 1 to 255 bytes of printable text/.test(l),
        ),
      );
      assert.ok(
        lines.some((l) =>
          /^latchkey: line 6: client: no client "nowhere" in the file or the database/.test(l),
        ),
      );
      assert.ok(
        lines.some((l) => /^latchkey: line 7: secret: A token secret is 1 to 1024 bytes/.test(l)),
      );
      assert.ok(lines.some((l) => /^latchkey: line 8: issuedAt: .*milliseconds/.test(l)));
      assert.match(
        result.stderr,
        /nothing was imported: fix the 6 problems above, then run it again/,
      );
      assert.equal(await space.ok(['export']), '');
    } finally {
      space.remove();
    }
  });

  it('refuses an owner record whose username the database gives another owner, writing nothing', async () => {
    const space = workspace();
    try {
      await space.ok(['users', 'add', '--username', 'alice', '--password-stdin'], {
        input: 'alice-password',
      });
      const result = await space.run(['import', EXAMPLE]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^latchkey: line 10: username: the database has another owner "alice" \(id [^)]+\); importing this one would change its subject/m,
      );
      assert.match(result.stderr, /nothing was imported/);
      assert.equal(await space.ok(['export']).then((text) => text.split('\n').length), 2);
    } finally {
      space.remove();
    }
  });

  it('reports an owner whose name differs as a conflict, and takes it with --update', async () => {
    const space = await imported();
    try {
      const lines = exampleLines.map((line) =>
        line.includes('"username":"bob"') && line.startsWith('{"kind":"owner"')
          ? line.replace('"name":"bob"', '"name":"Bob B."')
          : line,
      );
      const file = withFile(space, 'renamed.jsonl', lines);
      const result = await space.run(['import', file]);
      assert.equal(result.code, 1);
      assert.match(result.stdout, /^line 11: owner 3c1d9e77-[^:]+: conflict, differs in name/m);
      assert.equal((await space.run(['import', file, '--update'])).code, 0);
      assert.match(await space.ok(['export']), /"name":"Bob B\.","username":"bob"/);
    } finally {
      space.remove();
    }
  });

  it('names an owner the database lacks, unless --create-owners', async () => {
    const space = workspace();
    try {
      const result = await space.run([
        'import',
        withFile(space, 'credentials.jsonl', credentialLines),
      ]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /line 2: no local user "dana" \(create it with `latchkey users add`, or import with --create-owners\)/,
      );
      assert.match(result.stderr, /line 4: no local user "alice" \(and 1 more line refer to it\)/);
      // The summary counts what it named (six problems, seven lines), never fewer or more.
      const named = result.stderr.split('\n').filter((line) => /^latchkey: line \d+:/.test(line));
      assert.equal(named.length, 6);
      assert.match(result.stderr, /nothing was imported: fix the 6 problems above/);
    } finally {
      space.remove();
    }
  });

  it('reports a different credential under a stored key and keeps the stored one, unless --update', async () => {
    const space = await imported();
    try {
      const file = withFile(
        space,
        'changed.jsonl',
        edited('legacy-token-alice', { scope: 'read write', secret: 'another' }),
      );
      const result = await space.run(['import', file]);
      assert.equal(result.code, 1);
      assert.match(
        result.stdout,
        /^line 4: token legacy-token-alice: conflict, differs in secret, scope \(--update overwrites it\)$/m,
      );
      assert.match(
        await space.ok(['export', '--include-secrets']),
        /"token":"legacy-token-alice","secret":"tök€n s\/cr\+t=","client":"legacy-printer","owner":\{"username":"alice"\},"scope":"read"/,
      );
      const updated = await space.run(['import', file, '--update']);
      assert.equal(updated.code, 0, updated.stderr);
      assert.match(updated.stdout, /^line 4: token legacy-token-alice: secret, scope updated$/m);
      assert.match(
        await space.ok(['export', '--include-secrets']),
        /"token":"legacy-token-alice","secret":"another","client":"legacy-printer","owner":\{"username":"alice"\},"scope":"read write"/,
      );
    } finally {
      space.remove();
    }
  });

  it('takes a later revocation and last use without --update, and never undoes a revocation', async () => {
    const space = await imported();
    try {
      const revoked = withFile(
        space,
        'revoked.jsonl',
        edited('legacy-token-alice', {
          revokedAt: '2024-06-01T00:00:00.000Z',
          lastUsedAt: '2024-05-31T00:00:00.000Z',
        }),
      );
      const result = await space.run(['import', revoked]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /^line 4: token legacy-token-alice: revokedAt, lastUsedAt updated$/m,
      );
      const unrevoked = withFile(
        space,
        'unrevoked.jsonl',
        edited('legacy-token-bob', { revokedAt: null }),
      );
      assert.equal((await space.run(['import', unrevoked, '--update'])).code, 0);
      const exported = await space.ok(['export']);
      assert.match(
        exported,
        /"token":"legacy-token-alice".*"lastUsedAt":"2024-05-31T00:00:00.000Z","deviceHint":"Photo Printer\/3.2 \(Windows NT 10.0\)","revokedAt":"2024-06-01T00:00:00.000Z"/,
      );
      assert.match(exported, /"token":"legacy-token-bob".*"revokedAt":"2024-02-29T10:00:00.000Z"/);
    } finally {
      space.remove();
    }
  });

  it('takes a device hint for a token without one, and keeps the one a token has', async () => {
    const space = await imported();
    try {
      const hinted = withFile(space, 'hinted.jsonl', [
        ...edited('tv token 1', { deviceHint: '  SmartTV/7.1\t(Tizen) ' }).filter((line) =>
          line.includes('"tv token 1"'),
        ),
        ...edited('legacy-token-alice', { deviceHint: 'Someone else/1.0' }).filter((line) =>
          line.includes('"legacy-token-alice"'),
        ),
      ]);
      const result = await space.run(['import', hinted]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /token tv token 1: deviceHint updated$/m);
      const exported = await space.ok(['export']);
      assert.match(exported, /"token":"tv token 1".*"deviceHint":"SmartTV\/7.1 \(Tizen\)"/);
      assert.match(exported, /"token":"legacy-token-alice".*"deviceHint":"Photo Printer\/3.2/);
    } finally {
      space.remove();
    }
  });

  it('prints what would change with --dry-run, and writes nothing', async () => {
    const space = workspace();
    try {
      const file = withFile(space, 'credentials.jsonl', credentialLines);
      const result = await space.run(['import', file, '--create-owners', '--dry-run']);
      assert.equal(result.code, 0, result.stderr);
      // Nothing on disk either: no database, no key file (serve would then take it as made);
      // only the file read.
      assert.deepEqual(readdirSync(space.dir), ['credentials.jsonl']);
      assert.match(result.stdout, /^Dry run: nothing was written\.$/m);
      assert.match(result.stdout, /^Clients: 3 to create, 0 to update, 0 unchanged/m);
      assert.match(result.stdout, /^Tokens: +6 to create/m);
      assert.match(
        result.stdout,
        /^Owners: +6 to create without a password \(dana, alice, bob, carol, oidc:248289761001, delegated:employee-4711\)/m,
      );
      assert.equal(await space.ok(['export']), '');
      assert.equal(await space.ok(['users', 'list', '--json']), '[]\n');
    } finally {
      space.remove();
    }
  });

  it('reports a new client without its secret, by line, and the tokens that depend on it', async () => {
    const space = workspace();
    try {
      const withoutSecrets = exampleLines.map((line) => {
        const { secret, ...rest } = JSON.parse(line) as Record<string, unknown>;
        return JSON.stringify(secret === null ? { ...rest, secret } : rest);
      });
      const file = withFile(space, 'no-secrets.jsonl', withoutSecrets);
      const result = await space.run(['import', file, '--create-owners']);
      assert.equal(result.code, 1);
      assert.match(result.stdout, /^line 1: client legacy-printer: A new client needs its secret/m);
      assert.match(
        result.stdout,
        /^line 4: token legacy-token-alice: its client \(line 1\) was not imported$/m,
      );
      assert.match(
        result.stdout,
        /^Clients: 1 created, 0 updated, 0 unchanged, 0 conflicts, 2 errors\.$/m,
      );
    } finally {
      space.remove();
    }
  });
});
