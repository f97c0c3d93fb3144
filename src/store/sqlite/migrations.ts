/**
 * The SQLite runner of the migrations (src/store/sql/migrations.ts, where a new one is added):
 * the steps with a SQLite form, in order. Entry i takes the schema from version i to i + 1;
 * `PRAGMA user_version` records the version, inside the same transaction as the change, so a
 * migration is applied whole or not at all.
 */
import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { migrationSteps, pendingMigrations, type SqliteMigration } from '../sql/migrations.ts';

export const migrations: readonly SqliteMigration[] = migrationSteps.flatMap((step) =>
  step.sqlite === null ? [] : [step.sqlite],
);

/** Applies one migration's SQL or code (the version is the caller's to record). */
export function applyMigration(db: DatabaseSync, migration: SqliteMigration): void {
  if (typeof migration === 'string') db.exec(migration);
  else migration(db);
}

/** The schema version of an open database (`PRAGMA user_version`). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get();
  return Number(row?.user_version ?? 0);
}

/**
 * Brings the schema up to date and returns how many migrations it applied (0 when current).
 * BEGIN IMMEDIATE takes the write lock before reading the version, so two processes opening
 * the same new file do not both migrate it. A database newer than this code is refused
 * rather than used with a schema we do not know.
 */
export function applyMigrations(db: DatabaseSync): number {
  // The sealed-secrets step digests the stored verifiers as the provider does (src/provider/accounts/sessions.ts).
  db.function('latchkey_digest', { deterministic: true }, (value) =>
    typeof value === 'string' ? createHash('sha256').update(value).digest('base64url') : value,
  );
  // A migration may rebuild a table others refer to (SQLite's documented ALTER TABLE
  // procedure): with foreign keys on, dropping the old table would cascade its deletes. The
  // pragma has no effect inside a transaction, so it is set around it, and the keys are
  // checked before the commit instead.
  const foreignKeys = Number(db.prepare('PRAGMA foreign_keys').get()?.foreign_keys ?? 0);
  db.exec('PRAGMA foreign_keys = OFF');
  try {
    return migrateWithoutForeignKeys(db);
  } finally {
    if (foreignKeys !== 0) db.exec('PRAGMA foreign_keys = ON');
  }
}

function migrateWithoutForeignKeys(db: DatabaseSync): number {
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = schemaVersion(db);
    for (const [index, migration] of pendingMigrations(migrations, version)) {
      applyMigration(db, migration);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    }
    if (db.prepare('PRAGMA foreign_key_check').all().length > 0) {
      throw new Error('The migrated database breaks a foreign key; nothing was changed.');
    }
    db.exec('COMMIT');
    return migrations.length - version;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
