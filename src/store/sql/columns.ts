/**
 * The column readers both SQL drivers read alike; each adapter's row.ts adds those its driver
 * reads its own way (integers, booleans, lists). A value of the wrong type means a damaged or
 * foreign schema, which must fail loudly rather than pass through.
 */
import { rowMappers } from '../rows.ts';
import type { Sealer } from '../sealing.ts';
import type { Row } from './runner.ts';

export function wrongType(row: Row, column: string, expected: string): Error {
  return new TypeError(`Column ${column} holds ${typeof row[column]}, expected ${expected}.`);
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw wrongType(row, column, 'text');
  return value;
}

export function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

/** `read`, or null for a NULL column. */
export function orNull<T>(read: (row: Row, column: string) => T) {
  return (row: Row, column: string): T | null => (row[column] === null ? null : read(row, column));
}

/** A list of strings, or the error naming what the driver should have given. */
export function strings(row: Row, column: string, value: unknown, expected: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw wrongType(row, column, expected);
  }
  return value;
}

/** What each driver reads its own way. */
export interface DriverColumns {
  int(row: Row, column: string): number;
  bool(row: Row, column: string): boolean;
  stringList(row: Row, column: string): string[];
}

/**
 * One driver's readers, with its row → record mappers (src/store/rows.ts): plain, and opening
 * sealed secrets with a sealer.
 */
export function driverRows(own: DriverColumns) {
  const read = { ...own, text, textOrNull, intOrNull: orNull(own.int) };
  return {
    read,
    fromRow: rowMappers<Row>(read),
    sealedRows: (sealer: Sealer) => rowMappers<Row>(read, sealer),
  };
}
