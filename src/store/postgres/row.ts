/**
 * Typed column readers over `pg` rows. The driver already returns JS types (BIGINT as a number
 * through database.ts, TEXT[] as an array); a value of another type means a foreign schema,
 * which must fail loudly rather than pass through.
 */
import { rowMappers } from '../rows.ts';
import type { Sealer } from '../sealing.ts';
export type Row = Record<string, unknown>;

function wrong(row: Row, column: string, expected: string): Error {
  return new TypeError(`Column ${column} holds ${typeof row[column]}, expected ${expected}.`);
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw wrong(row, column, 'text');
  return value;
}

export function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

export function int(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number') throw wrong(row, column, 'integer');
  return value;
}

export function intOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : int(row, column);
}

export function bool(row: Row, column: string): boolean {
  const value = row[column];
  if (typeof value !== 'boolean') throw wrong(row, column, 'boolean');
  return value;
}

export function stringList(row: Row, column: string): string[] {
  const value = row[column];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw wrong(row, column, 'text[]');
  }
  return value;
}

/** The single row an INSERT … RETURNING must produce. */
export function first(rows: readonly Row[]): Row {
  const row = rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING returned no row.');
  return row;
}

/** This driver's rows as domain objects (src/store/rows.ts). */
const readers = { text, textOrNull, int, intOrNull, bool, stringList };

export const fromRow = rowMappers<Row>(readers);

/** The mappers opening sealed secrets with `sealer` (src/store/sealing.ts). */
export function sealedRows(sealer: Sealer) {
  return rowMappers<Row>(readers, sealer);
}
