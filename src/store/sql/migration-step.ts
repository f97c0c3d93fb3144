/**
 * One migration step's shape (migrations.ts), and `alike` for a step both dialects take but
 * for the spelling of types.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { Query } from '../postgres/database.ts';
import type { Types } from './first-schema.ts';

export type SqliteMigration = string | ((db: DatabaseSync) => void);
export type PostgresMigration = string | ((query: Query) => Promise<void>);

export interface MigrationStep {
  /** What the step changes. */
  readonly name: string;
  readonly sqlite: SqliteMigration | null;
  readonly postgres: PostgresMigration | null;
}

export const sqliteTypes: Types = {
  int64: 'INTEGER',
  bool: 'INTEGER',
  list: 'TEXT',
  keyed: ' WITHOUT ROWID',
  no: '0',
  serial: 'INTEGER PRIMARY KEY AUTOINCREMENT',
};
export const postgresTypes: Types = {
  int64: 'BIGINT',
  bool: 'BOOLEAN',
  list: 'TEXT[]',
  keyed: '',
  no: 'false',
  serial: 'BIGSERIAL PRIMARY KEY',
};

/** A step both dialects take alike but for the spelling of types. */
export function alike(sql: (t: Types) => string): Pick<MigrationStep, 'sqlite' | 'postgres'> {
  return { sqlite: sql(sqliteTypes), postgres: sql(postgresTypes) };
}
