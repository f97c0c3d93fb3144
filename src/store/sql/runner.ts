/**
 * The one shape both SQL adapters offer the stores they share (owners.ts, sessions.ts,
 * login-challenges.ts, audit.ts, consents.ts, usage.ts here): a statement with numbered
 * parameters (`$1`, as PostgreSQL writes them; SQLite's runner binds them in the order they
 * appear), its rows, the rows it changed, and statements run together in one transaction.
 * Each runner fails with the store's errors (src/store/types.ts) and names tables as its
 * dialect must: `"schema".name` in PostgreSQL, the bare name in SQLite.
 */
import type { rowMappers } from '../rows.ts';

export type Row = Record<string, unknown>;
export type Values = readonly unknown[];

export interface SqlRunner {
  table(name: string): string;
  /** The first row, or undefined when there is none. */
  one(sql: string, values?: Values): Promise<Row | undefined>;
  all(sql: string, values?: Values): Promise<Row[]>;
  /** How many rows the statement changed. */
  run(sql: string, values?: Values): Promise<number>;
  /** The statements in order in one transaction, all or none: how many rows each changed. */
  runAll(statements: readonly (readonly [sql: string, values: Values])[]): Promise<number[]>;
}

/** One driver's row → record mappers (src/store/rows.ts), without a sealer. */
export type Mappers = ReturnType<typeof rowMappers<Row>>;
