/**
 * The SQLite runner of the stores both SQL adapters share (src/store/sql/runner.ts): each
 * statement prepared once and kept, its `$n` parameters bound in the order they appear (each a
 * plain `?`: Node 22's node:sqlite binds positional values to `?NNN` refusing them as out of
 * range), node:sqlite's errors turned into the store's (errors.ts).
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { SqlRunner, Values } from '../sql/runner.ts';
import { method } from './errors.ts';
import type { Transaction } from './transaction.ts';

interface Prepared {
  readonly statement: StatementSync;
  /** For each `?` in order, the index of its value (`$2` is index 1; one may repeat). */
  readonly order: readonly number[];
}

export function sqliteRunner(db: DatabaseSync, transaction: Transaction): SqlRunner {
  const statements = new Map<string, Prepared>();
  const prepared = (sql: string): Prepared => {
    let entry = statements.get(sql);
    if (entry === undefined) {
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)/g, (_match, n: string) => {
        order.push(Number(n) - 1);
        return '?';
      });
      entry = { statement: db.prepare(text), order };
      statements.set(sql, entry);
    }
    return entry;
  };
  const call = <T>(
    sql: string,
    values: Values | undefined,
    run: (s: StatementSync, v: SQLInputValue[]) => T,
  ): T => {
    const { statement, order } = prepared(sql);
    const given = (values ?? []) as SQLInputValue[];
    return run(
      statement,
      order.map((index) => given[index] as SQLInputValue),
    );
  };
  const changes = (sql: string, values?: Values) =>
    call(sql, values, (s, v) => Number(s.run(...v).changes));
  return {
    table: (name) => name,
    one: method((sql: string, values?: Values) => call(sql, values, (s, v) => s.get(...v))),
    all: method((sql: string, values?: Values) => call(sql, values, (s, v) => s.all(...v))),
    run: method(changes),
    runAll: method((each: readonly (readonly [string, Values])[]) =>
      transaction(() => each.map(([sql, values]) => changes(sql, values))),
    ),
  };
}
