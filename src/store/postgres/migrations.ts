/**
 * The PostgreSQL runner of the migrations (src/store/sql/migrations.ts, where a new one is
 * added): the steps with a PostgreSQL form, in order. Entry i takes the schema from version i
 * to i + 1; `schema_migrations` records each version in the transaction that applies it.
 */
import type { Pool } from 'pg';
import { migrationSteps, pendingMigrations, type PostgresMigration } from '../sql/migrations.ts';
import { openDatabase } from './database.ts';

export const migrations: readonly PostgresMigration[] = migrationSteps.flatMap((step) =>
  step.postgres === null ? [] : [step.postgres],
);

/** Any constant: it keeps Latchkey's advisory locks apart from the application's. */
const lockClass = 0x4c4b;

export interface MigrateOptions {
  /** Bound on the whole migration, including waiting for another instance's (default 60 s). */
  readonly timeoutMs?: number;
}

/**
 * Brings `schema` (created when missing) up to date and returns how many migrations it applied
 * (0 when current). Every instance may call it at start-up: the transaction first takes an
 * advisory lock on the schema's name, so a second instance waits for the first and then finds
 * nothing to do. A schema newer than this code is refused rather than used.
 *
 * @example await migrate(pool, 'latchkey'); // `latchkey migrate`, ahead of a deploy
 */
export async function migrate(
  pool: Pool,
  schema: string,
  options: MigrateOptions = {},
): Promise<number> {
  const timeoutMs = Math.trunc(options.timeoutMs ?? 60_000);
  const db = openDatabase(pool, schema, { ownsPool: false, queryTimeoutMs: timeoutMs + 1000 });
  const name = db.schema;
  return db.transaction(async (query) => {
    // Longer than the store's per-statement bound: a migration may rewrite a large table.
    await query(`SET LOCAL statement_timeout = ${timeoutMs}`);
    await query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [lockClass, schema]);
    const exists = await query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    // Only when missing: CREATE SCHEMA IF NOT EXISTS would still need the CREATE privilege.
    if (exists.count === 0) await query(`CREATE SCHEMA ${name}`);
    await query(`SET LOCAL search_path TO ${name}`);
    await query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY,
         applied_at BIGINT NOT NULL
       )`,
    );
    const current = await query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    );
    const version = current.rows[0]?.version ?? 0;
    for (const [index, migration] of pendingMigrations(migrations, version)) {
      if (typeof migration === 'string') await query(migration);
      else await migration(query);
      await query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
        index + 1,
        Date.now(),
      ]);
    }
    return migrations.length - version;
  });
}

/** The schema version recorded in `schema`, or 0 when it has none yet. */
export async function schemaVersion(pool: Pool, schema: string): Promise<number> {
  const db = openDatabase(pool, schema, { ownsPool: false, queryTimeoutMs: 5000 });
  const found = await db.query('SELECT to_regclass($1) IS NOT NULL AS present', [
    db.table('schema_migrations'),
  ]);
  if (found.rows[0]?.present !== true) return 0;
  const current = await db.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${db.table('schema_migrations')}`,
  );
  return current.rows[0]?.version ?? 0;
}
