/**
 * The SQLite runner of the stores both SQL adapters share (src/store/sql/runner.ts): each
 * statement prepared once and kept, its `$n` parameters read as SQLite's `?n`, node:sqlite's
 * errors turned into the store's (errors.ts).
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { SqlRunner, Values } from '../sql/runner.ts';
import { method } from './errors.ts';

export function sqliteRunner(db: DatabaseSync): SqlRunner {
  const statements = new Map<string, StatementSync>();
  const prepared = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
      statements.set(sql, statement);
    }
    return statement;
  };
  const bind = (values: Values = []) => values as SQLInputValue[];
  return {
    table: (name) => name,
    one: method((sql: string, values?: Values) => prepared(sql).get(...bind(values))),
    all: method((sql: string, values?: Values) => prepared(sql).all(...bind(values))),
    run: method((sql: string, values?: Values) =>
      Number(prepared(sql).run(...bind(values)).changes),
    ),
  };
}
