/**
 * `latchkey migrate`: bring the database schema up to date ahead of a deploy. For SQLite,
 * opening the store applies the migrations, so this opens it and reports the version. For
 * PostgreSQL it applies them under the schema's advisory lock, so it is safe while instances
 * run (they wait for it) and when several deploy steps race (one applies, the others find it
 * done).
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { storeSettingNames } from '../../config.ts';
import type { LatchkeyConfig } from '../../config.ts';
import { openStore, shownDatabase } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import { print, printJson } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';

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

export function registerMigrate(program: Command): void {
  withSettings(program.command('migrate'), storeSettingNames)
    .description('apply the database migrations and report the schema version')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = configOf(command);
      const { isPostgresUrl } = await import('../../store/open.ts');
      const postgres = isPostgresUrl(config.database);
      const versions = postgres ? await migratePostgres(config) : await migrateSqlite(config);
      const database = postgres
        ? `${shownDatabase(config.database)} (schema ${config.postgresSchema})`
        : config.database;
      const report = {
        database,
        schemaVersion: versions.after,
        latestVersion: versions.latest,
        applied: versions.after - versions.before,
      };
      if (options.json === true) return printJson(report);
      print(
        report.applied === 0
          ? `Database ${database} is up to date (schema version ${versions.after}).`
          : `Database ${database}: applied ${report.applied} migration(s), now at schema version ${versions.after}.`,
      );
    });
}
