/**
 * `latchkey migrate`: bring the database schema up to date ahead of a deploy. For SQLite,
 * opening the store applies the migrations, so this opens it and reports the version.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { openStore } from '../context.ts';
import { print, printJson } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';

async function versionOf(path: string): Promise<number> {
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

export function registerMigrate(program: Command): void {
  withSettings(program.command('migrate'), ['database'])
    .description('apply the database migrations and report the schema version')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = configOf(command);
      const { migrations } = await import('../../store/sqlite/migrations.ts');
      const before = await versionOf(config.database);
      await (await openStore(config)).close();
      const after = await versionOf(config.database);
      const report = {
        database: config.database,
        schemaVersion: after,
        latestVersion: migrations.length,
        applied: after - before,
      };
      if (options.json === true) return printJson(report);
      print(
        report.applied === 0
          ? `Database ${config.database} is up to date (schema version ${after}).`
          : `Database ${config.database}: applied ${report.applied} migration(s), now at schema version ${after}.`,
      );
    });
}
