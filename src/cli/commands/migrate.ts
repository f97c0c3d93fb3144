/**
 * `latchkey migrate`: bring the database schema up to date ahead of a deploy. For SQLite,
 * opening the store applies the migrations, so this opens it and reports the version. For
 * PostgreSQL it applies them under the schema's advisory lock, so it is safe while instances
 * run (they wait for it) and when several deploy steps race (one applies, the others find it
 * done). `--from <sqlite-file>` then copies an embedded store's owners, clients and live
 * tokens into PostgreSQL (src/cli/copy-store.ts).
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import type { LatchkeyConfig } from '../config/config.ts';
import { openStore, shownDatabase } from '../context.ts';
import { keyringBeside } from '../../store/key-file.ts';
import type { Keyring } from '../../store/sealing.ts';
import { CommandFailure } from '../errors.ts';
import { chooseKeys } from '../secret-keys.ts';
import { print, printJson } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';
import { localOnlyCommand } from '../remote/target.ts';

interface Versions {
  readonly before: number;
  readonly after: number;
  readonly latest: number;
}

async function sqliteVersion(path: string): Promise<number> {
  if (path === ':memory:' || !existsSync(path)) return 0;
  const { DatabaseSync } = await import('node:sqlite');
  const { schemaVersion } = await import('../../store/sqlite/migrations.ts');
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return schemaVersion(db);
  } finally {
    db.close();
  }
}

async function migrateSqlite(config: LatchkeyConfig): Promise<Versions> {
  const { migrations } = await import('../../store/sqlite/migrations.ts');
  const before = await sqliteVersion(config.database);
  await (await openStore(config)).close();
  return { before, after: await sqliteVersion(config.database), latest: migrations.length };
}

async function migratePostgres(config: LatchkeyConfig): Promise<Versions> {
  const { createPool, migrate, migrations, schemaVersion } =
    await import('../../store/postgres/index.ts');
  const pool = createPool(config.database, { max: 1 });
  try {
    const before = await schemaVersion(pool, config.postgresSchema);
    await migrate(pool, config.postgresSchema);
    const after = await schemaVersion(pool, config.postgresSchema);
    return { before, after, latest: migrations.length };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CommandFailure(
      `database ${shownDatabase(config.database)}: cannot be migrated (${detail})`,
    );
  } finally {
    await pool.end();
  }
}

/**
 * The keys that open the source's secrets: its key file (beside it, the embedded default) and
 * the configured ones; the copy is sealed again under the target's keys.
 */
function sourceKeys(config: LatchkeyConfig, from: string): Keyring | undefined {
  const rings = [
    keyringBeside(from),
    ...(config.secretKey !== undefined || config.secretKeyFile !== undefined
      ? [chooseKeys(config).keyring]
      : []),
  ].filter((ring) => ring !== undefined);
  if (rings.length === 0) return undefined;
  return {
    current: () => rings[0]?.current(),
    find: (id) => rings.map((ring) => ring.find(id)).find((key) => key !== undefined),
  };
}

/** Copies the SQLite store at `from` into the configured (PostgreSQL) store. */
async function copyFrom(config: LatchkeyConfig, from: string) {
  if (!existsSync(from)) throw new CommandFailure(`--from ${from}: no such SQLite database file`);
  const [{ createSqliteStore }, { copyStore }] = await Promise.all([
    import('../../store/sqlite/index.ts'),
    import('../copy-store.ts'),
  ]);
  const source = createSqliteStore({ path: from, keyring: sourceKeys(config, from) });
  try {
    const target = await openStore(config);
    try {
      return await copyStore(source, target, Date.now());
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

export function registerMigrate(program: Command): void {
  localOnlyCommand(withSettings(program.command('migrate'), storeSettingNames))
    .description('apply the database migrations and report the schema version')
    .option(
      '--from <sqlite-file>',
      'then copy owners, clients and live tokens from this SQLite store',
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  latchkey migrate\n  LATCHKEY_DATABASE=postgres://latchkey@db/latchkey latchkey migrate --from ./data/latchkey.db',
    )
    .action(async (options: { json?: boolean; from?: string }, command: Command) => {
      const config = configOf(command);
      const { isPostgresUrl } = await import('../../store/open.ts');
      const postgres = isPostgresUrl(config.database);
      if (options.from !== undefined && !postgres) {
        throw new CommandFailure(
          '--from copies into PostgreSQL: set database to a postgres:// URL',
        );
      }
      const versions = postgres ? await migratePostgres(config) : await migrateSqlite(config);
      const copied = options.from === undefined ? undefined : await copyFrom(config, options.from);
      const database = postgres
        ? `${shownDatabase(config.database)} (schema ${config.postgresSchema})`
        : config.database;
      const report = {
        database,
        schemaVersion: versions.after,
        latestVersion: versions.latest,
        applied: versions.after - versions.before,
        ...(copied === undefined ? {} : { copied }),
      };
      if (options.json === true) return printJson(report);
      if (copied !== undefined) {
        print(
          `Copied from ${options.from}: ${copied.owners} owner(s), ${copied.clients} client(s), ${copied.tokens} token(s); ${copied.skipped} skipped (already there, revoked or expired).`,
        );
      }
      print(
        report.applied === 0
          ? `Database ${database} is up to date (schema version ${versions.after}).`
          : `Database ${database}: applied ${report.applied} migration(s), now at schema version ${versions.after}.`,
      );
    });
}
