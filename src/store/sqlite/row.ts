/**
 * Typed column readers: node:sqlite returns loosely typed values, and a value of the wrong
 * type means a damaged or foreign database, which must fail loudly rather than pass through.
 */
import { rowMappers } from '../rows.ts';
import type { Sealer } from '../sealing.ts';
import type { SQLOutputValue } from 'node:sqlite';

export type Row = Record<string, SQLOutputValue>;

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
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw wrong(row, column, 'integer');
}

export function intOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : int(row, column);
}

/** Booleans are stored as 0 and 1. */
export function bool(row: Row, column: string): boolean {
  return int(row, column) !== 0;
}

/** Lists (callbacks, signature methods) are stored as JSON text. */
export function stringList(row: Row, column: string): string[] {
  const value: unknown = JSON.parse(text(row, column));
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw wrong(row, column, 'a JSON list of strings');
  }
  return value;
}

/** This driver's rows as domain objects (src/store/rows.ts). */
const readers = { text, textOrNull, int, intOrNull, bool, stringList };

export const fromRow = rowMappers<Row>(readers);

/** The mappers opening sealed secrets with `sealer` (src/store/sealing.ts). */
export function sealedRows(sealer: Sealer) {
  return rowMappers<Row>(readers, sealer);
}
