/**
 * Typed column readers over node:sqlite rows, which are loosely typed; those both drivers read
 * alike are in src/store/sql/columns.ts.
 */
import { driverRows, orNull, strings, text, wrongType } from '../sql/columns.ts';
import type { Row } from '../sql/runner.ts';

export type { Row } from '../sql/runner.ts';
export { text, textOrNull } from '../sql/columns.ts';

export function int(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw wrongType(row, column, 'integer');
}

/** Booleans are stored as 0 and 1. */
export function bool(row: Row, column: string): boolean {
  return int(row, column) !== 0;
}

/** Lists (callbacks, signature methods) are stored as JSON text. */
export function stringList(row: Row, column: string): string[] {
  return strings(row, column, JSON.parse(text(row, column)), 'a JSON list of strings');
}

/** This driver's rows as domain objects (src/store/rows.ts); sealedRows opens sealed secrets. */
export const { read, fromRow, sealedRows } = driverRows({ int, bool, stringList });

/** An integer column that may be NULL. */
export const intOrNull = orNull(int);

/** How SQLite stores booleans (0 and 1) and lists (JSON text) when writing them. */
export const spelling = {
  bool: (value: boolean) => (value ? 1 : 0),
  list: (value: readonly string[]) => JSON.stringify(value),
};
