// docs/import.md over the real CLI and a real server: an export imported into an empty
// database is the same owners (each `/api/me` subject unchanged, local and from identity
// sources) and the same credentials (every token answers as before), on SQLite and on
// PostgreSQL; and an import never revives a token that a session renewal retired.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSigningFetch, requestTokenRenewal } from '../../src/client/index.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import { bin, workspace } from './run-cli.ts';
import type { Workspace } from './run-cli.ts';

const EXAMPLE = fileURLToPath(new URL('../../docs/import-example.jsonl', import.meta.url));
/** The example's clients and tokens without its owner records, as another provider has them. */
const credentialLines = readFileSync(EXAMPLE, 'utf8')
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('{"kind":"owner"'));

interface Server {
  readonly url: string;
  stop(): Promise<void>;
}

/** `latchkey serve --port 0` on the workspace's database, until stopped. */
async function serve(
  space: Workspace,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<Server> {
  const merged = Object.fromEntries(
    Object.entries({ ...space.env, ...env }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env: merged });
  const exited = new Promise((resolve) => child.on('close', resolve));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /^Latchkey listening on (http:\/\/\S+)$/m.exec(output);
      if (match !== null) resolve(match[1]!);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    void exited.then(() => reject(new Error(`serve exited: ${output}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Exported {
  readonly kind: string;
  readonly key?: string;
  readonly secret?: string | null;
  readonly token?: string;
  readonly client?: string;
}

function records(text: string): Exported[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Exported);
}

/** How every token of an export answers `/api/me` (HMAC-SHA1): its status and owner. */
async function answers(url: string, exported: string): Promise<string[]> {
  const all = records(exported);
  const secrets = new Map(all.filter((r) => r.kind === 'client').map((r) => [r.key, r.secret]));
  const seen: string[] = [];
  for (const record of all.filter((r) => r.kind === 'token')) {
    const api = createSigningFetch({
      client: { key: record.client!, secret: secrets.get(record.client!) ?? '' },
      token: { token: record.token!, secret: record.secret! },
    });
    const response = await api(`${url}/api/me`);
    const text = await response.text();
    // 200: the caller as JSON; an error: its oauth_problem (form-encoded, §3.2 of the spec).
    const said =
      response.status === 200
        ? JSON.stringify((JSON.parse(text) as { owner: unknown }).owner)
        : (new URLSearchParams(text).get('oauth_problem') ?? text);
    seen.push(`${record.token}: ${response.status} ${said}`);
  }
  return seen;
}

/** The CLI on one backend: SQLite in the workspace, or PostgreSQL in a schema of its own. */
type Backend = (space: Workspace) => Readonly<Record<string, string | undefined>>;

function retired(backend: Backend) {
  it('refuses the export’s token of a session renewed since, and the session does not fork', async () => {
    const space = workspace();
    const env = backend(space);
    let server: Server | undefined;
    try {
      const handle = 'the-session-handle-of-this-test';
      const seed = join(space.dir, 'seed.jsonl');
      const clientRecord = JSON.parse(credentialLines[0]!) as { key: string; secret: string };
      writeFileSync(
        seed,
        [
          credentialLines[0]!,
          JSON.stringify({
            kind: 'token',
            token: 'session-token-1',
            secret: 'session-secret-1',
            client: clientRecord.key,
            owner: { username: 'alice' },
            sessionHandleHash: createHash('sha256').update(handle).digest('hex'),
            sessionExpiresAt: '2099-01-01T00:00:00Z',
          }),
        ]
          .map((line) => `${line}\n`)
          .join(''),
      );
      await space.ok(['import', seed, '--create-owners'], { env });
      const backup = join(space.dir, 'backup.jsonl');
      writeFileSync(backup, await space.ok(['export', '--include-secrets'], { env }));

      server = await serve(space, env);
      const client = { key: clientRecord.key, secret: clientRecord.secret };
      const old = { token: 'session-token-1', secret: 'session-secret-1' };
      const renewal = await requestTokenRenewal(`${server.url}/oauth/access_token`, {
        client,
        token: old,
        sessionHandle: handle,
      });
      assert.equal(renewal.status, 200);
      const fields = new URLSearchParams(await renewal.text());
      const renewed = {
        token: fields.get('oauth_token')!,
        secret: fields.get('oauth_token_secret')!,
      };
      const me = (token: typeof old) =>
        createSigningFetch({ client, token })(`${server!.url}/api/me`).then((r) => r.status);
      assert.deepEqual([await me(old), await me(renewed)], [401, 200]);

      const result = await space.run(['import', backup], { env });
      assert.equal(result.code, 1, result.stdout);
      assert.match(
        result.stdout,
        /^line \d+: token session-token-1: its session is held by token "[^"]+" \(renewed since\)/m,
      );
      assert.match(
        result.stdout,
        /^Tokens: +0 created, 0 updated, 0 unchanged, 0 conflicts, 1 error\.$/m,
      );
      // Not even --update writes it.
      assert.equal((await space.run(['import', backup, '--update'], { env })).code, 1);
      assert.deepEqual([await me(old), await me(renewed)], [401, 200]);
      const again = await requestTokenRenewal(`${server.url}/oauth/access_token`, {
        client,
        token: old,
        sessionHandle: handle,
      });
      assert.equal(again.status, 401);
    } finally {
      await server?.stop();
      space.remove();
    }
  });
}

function roundTrip(backend: Backend) {
  it('keeps every owner’s subject and every token’s answer after export, import into an empty database', async () => {
    const source = workspace();
    const target = workspace();
    const sourceEnv = backend(source);
    const targetEnv = backend(target);
    const servers: Server[] = [];
    try {
      // Owners the old way: a local account, and owners --create-owners made for records.
      await source.ok(['users', 'add', '--username', 'erin', '--password-stdin'], {
        input: 'erin-password',
        env: sourceEnv,
      });
      const seed = join(source.dir, 'seed.jsonl');
      writeFileSync(seed, credentialLines.map((line) => `${line}\n`).join(''));
      await source.ok(['import', seed, '--create-owners'], { env: sourceEnv });
      const client = JSON.parse(
        await source.ok(['clients', 'add', '--name', 'Erin App', '--json'], { env: sourceEnv }),
      ) as { key: string };
      await source.ok(['tokens', 'issue', '--client', client.key, '--user', 'erin'], {
        env: sourceEnv,
      });

      const exported = await source.ok(['export', '--include-secrets'], { env: sourceEnv });
      const owners = records(exported).filter((r) => r.kind === 'owner');
      assert.equal(owners.length, 7);
      const file = join(target.dir, 'backup.jsonl');
      writeFileSync(file, exported);
      const imported = await target.run(['import', file], { env: targetEnv });
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^Owners: +7 created/m);
      assert.equal(await target.ok(['export', '--include-secrets'], { env: targetEnv }), exported);

      servers.push(await serve(source, sourceEnv));
      const before = await answers(servers[0]!.url, exported);
      servers.push(await serve(target, targetEnv));
      const afterImport = await answers(servers[1]!.url, exported);
      assert.deepEqual(afterImport, before);
      // The answers say something: tokens of local and external owners, by their subjects.
      const ok = before.filter((line) => / 200 /.test(line));
      assert.equal(ok.length, 3, before.join('\n'));
      assert.ok(
        ok.some((line) => line.includes('"subject":"248289761001"')),
        before.join('\n'),
      );
    } finally {
      for (const server of servers) await server.stop();
      source.remove();
      target.remove();
    }
  });
}

describe('latchkey export and import on SQLite', () => {
  roundTrip(() => ({}));
  retired(() => ({}));
});

const postgresSkip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());

describe(
  'latchkey export and import on PostgreSQL',
  {
    skip: postgresSkip,
  },
  () => {
    const schemas: string[] = [];
    after(async () => {
      for (const schema of schemas) await dropSchema(schema).catch(() => undefined);
    });
    const postgres: Backend = () => {
      const schema = runName('schema');
      schemas.push(schema);
      return { LATCHKEY_DATABASE: postgresUrl, LATCHKEY_POSTGRES_SCHEMA: schema };
    };
    roundTrip(postgres);
    retired(postgres);
  },
);
