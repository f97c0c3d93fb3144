// docs/deployment.md "From one machine to several": `latchkey migrate --from <sqlite-file>`
// applies the PostgreSQL migrations, then copies the embedded store's owners, clients and live
// tokens, so apps and people keep their credentials when a deployment moves to PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/index.ts';
import { baseEnv, runCli } from '../cli/run-cli.ts';
import type { CliResult } from '../cli/run-cli.ts';
import { postgresUrl, redisUrl, servicesSkip, useDeployment } from './support.ts';

const skip = await servicesSkip();

describe('latchkey migrate --from: SQLite to PostgreSQL', { skip }, () => {
  const deployment = useDeployment();
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-from-'));
  const file = join(dir, 'latchkey.db');
  let env: Record<string, string>;
  let first: CliResult;
  let again: CliResult;
  let target: Store;
  const seeded = { clientKey: '', clientSecret: '', live: '', revoked: '', session: '' };

  before(async () => {
    const source = createSqliteStore({ path: file });
    const provider = createProvider({ store: source });
    const client = await provider.clients.register({
      name: 'Photo Printer',
      sessionExtension: true,
    });
    const owner = await provider.owners.create('alice', 'correct horse battery');
    const live = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    const revoked = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
    await provider.tokens.revoke(revoked.token);
    // Session extension: its hour is over, but its session can still renew it.
    const session = await source.tokenCredentials.create({
      token: 'session-token',
      secret: 'session-secret',
      clientKey: client.key,
      ownerId: owner.id,
      scope: 'read',
      issuedAt: Date.now() - 2 * 3_600_000,
      expiresAt: Date.now() - 3_600_000,
      sessionHandleHash: 'e'.repeat(64),
      sessionExpiresAt: Date.now() + 30 * 86_400_000,
    });
    Object.assign(seeded, {
      session: session.token,
      clientKey: client.key,
      clientSecret: client.secret,
      live: live.token,
      revoked: revoked.token,
    });
    await provider.close();
    await source.close();
    env = {
      ...baseEnv(),
      LATCHKEY_DATABASE: postgresUrl,
      LATCHKEY_REDIS: redisUrl,
      LATCHKEY_POSTGRES_SCHEMA: deployment.schema,
      LATCHKEY_REDIS_PREFIX: deployment.prefix,
    };
    first = await runCli(['migrate', '--from', file, '--json'], env);
    again = await runCli(['migrate', '--from', file, '--json'], env);
    target = await deployment.open();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('applies the migrations and copies owners, clients and live tokens', () => {
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout) as { copied: Record<string, number> };
    assert.deepEqual(report.copied, { owners: 1, clients: 1, tokens: 2, skipped: 1 });
  });

  it('keeps a client’s key and secret, so the app keeps working', async () => {
    assert.equal((await target.clients.find(seeded.clientKey))?.secret, seeded.clientSecret);
  });

  it('copies an expired token whose session can renew it, session and client flag included', async () => {
    const copied = await target.tokenCredentials.find(seeded.session);
    assert.equal(copied?.sessionHandleHash, 'e'.repeat(64));
    assert.ok((copied?.sessionExpiresAt ?? 0) > Date.now());
    assert.equal((await target.clients.find(seeded.clientKey))?.sessionExtension, true);
  });

  it('keeps an owner’s password', async () => {
    const provider = createProvider({ store: target });
    const owner = await provider.owners.authenticate('alice', 'correct horse battery');
    assert.equal(owner?.username, 'alice');
  });

  it('copies a live token, and leaves a revoked one behind', async () => {
    assert.deepEqual(
      [
        (await target.tokenCredentials.find(seeded.live))?.token,
        await target.tokenCredentials.find(seeded.revoked),
      ],
      [seeded.live, undefined],
    );
  });

  it('copies nothing twice when run again', () => {
    assert.equal(again.code, 0, again.stderr);
    const report = JSON.parse(again.stdout) as { copied: Record<string, number> };
    assert.deepEqual(report.copied, { owners: 0, clients: 0, tokens: 0, skipped: 5 });
  });

  it('refuses --from when the database is not PostgreSQL', async () => {
    const result = await runCli(['migrate', '--from', file], {
      ...baseEnv(),
      LATCHKEY_DATABASE: join(dir, 'other.db'),
    });
    assert.deepEqual([result.code, /postgres:\/\//.test(result.stderr)], [1, true]);
  });
});
