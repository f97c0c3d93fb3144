/**
 * Typed column readers over `pg` rows. The driver already returns JS types (BIGINT as a number
 * through database.ts, TEXT[] as an array); those both drivers read alike are in
 * src/store/sql/columns.ts.
 */
import { driverRows, orNull, strings, wrongType } from '../sql/columns.ts';
import type { Row } from '../sql/runner.ts';

export type { Row } from '../sql/runner.ts';
export { text, textOrNull } from '../sql/columns.ts';

export function int(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number') throw wrongType(row, column, 'integer');
  return value;
}

export function bool(row: Row, column: string): boolean {
  const value = row[column];
  if (typeof value !== 'boolean') throw wrongType(row, column, 'boolean');
  return value;
}

export function stringList(row: Row, column: string): string[] {
  return strings(row, column, row[column], 'text[]');
}

/** The single row an INSERT … RETURNING must produce. */
export function first(rows: readonly Row[]): Row {
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
  return row;
}

/** This driver's rows as domain objects (src/store/rows.ts); sealedRows opens sealed secrets. */
export const { read, fromRow, sealedRows } = driverRows({ int, bool, stringList });

/** An integer column that may be NULL. */
export const intOrNull = orNull(int);

/** PostgreSQL stores booleans and lists (TEXT[]) as themselves. */
export const spelling = {
  bool: (value: boolean) => value,
  list: (value: readonly string[]) => value,
};
