/**
 * The adapter's one path to PostgreSQL: a query or a transaction on a pooled connection, with
 * bounded waits, BIGINT columns read as numbers, and pg errors translated (errors.ts). A
 * connection that failed is destroyed rather than returned to the pool, so the pool heals by
 * opening fresh connections once the database is back.
 */
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { DatabaseError, escapeIdentifier, types } from 'pg';
import { StoreUnavailableError } from '../types.ts';
import { translateError } from './errors.ts';

const int8 = 20;

/** BIGINT (times in ms, lifetimes, counts) as a number; beyond 2^53 it would lose digits. */
function parseInt8(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError('A BIGINT column exceeds 2^53.');
  return number;
}

/** Per-query types, so a pool shared with the application keeps its own parsers. */
const queryTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === int8 && format !== 'binary'
      ? parseInt8
      : types.getTypeParser(oid, format ?? 'text')) as typeof types.getTypeParser,
};

export type Values = readonly unknown[];

export interface Rows<R> {
  readonly rows: R[];
  readonly count: number;
}

/** Runs one statement; inside a transaction, on its connection. */
export type Query = <R extends QueryResultRow = QueryResultRow>(
  text: string,
  values?: Values,
) => Promise<Rows<R>>;

export interface Database {
  /** The schema's name, quoted as an identifier. */
  readonly schema: string;
  /** `"schema".name`: every statement names its tables in full, so no search_path is needed. */
  table(name: string): string;
  query: Query;
  /** BEGIN … COMMIT on one connection; ROLLBACK when the body throws. */
  transaction<T>(body: (query: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Schema names are identifiers we quote ourselves; refuse anything unusual outright. */
export function checkSchemaName(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}.`);
  }
  return escapeIdentifier(schema);
}

export interface DatabaseOptions {
  /** Whether close() ends the pool (it does when the store created it). */
  readonly ownsPool: boolean;
  /**
   * Client-side bound on each statement, even on a pool the application configured: past it
   * the call fails with StoreUnavailableError and the connection is dropped.
   */
  readonly queryTimeoutMs: number;
}

function on(client: PoolClient, timeoutMs: number, onBroken: (error: unknown) => void): Query {
  return async (text, values) => {
    try {
      const result = await client.query({
        text,
        values: [...(values ?? [])],
        types: queryTypes,
        // Not in @types/pg's QueryConfig, but read per query by pg's Client.query.
        ...{ query_timeout: timeoutMs },
      });
      return { rows: result.rows, count: result.rowCount ?? 0 };
    } catch (error) {
      // A server's answer (DatabaseError) leaves the connection usable; anything else (a read
      // timeout, a reset) leaves it in an unknown state.
      if (!(error instanceof DatabaseError)) onBroken(error);
      throw translateError(error);
    }
  };
}

export function openDatabase(pool: Pool, schema: string, options: DatabaseOptions): Database {
  const quoted = checkSchemaName(schema);
  let closed = false;

  async function withClient<T>(body: (query: Query) => Promise<T>): Promise<T> {
    if (closed) throw new StoreUnavailableError('The PostgreSQL store is closed.');
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw translateError(error);
    }
    // An error event on a checked-out client would otherwise be thrown as uncaught.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      return await body(
        on(client, options.queryTimeoutMs, (error) => {
          broken ??= error instanceof Error ? error : new Error('Connection failed.');
        }),
      );
    } finally {
      client.off('error', onError);
      // Releasing with an error destroys the connection instead of pooling it.
      client.release(broken);
    }
  }

  return {
    schema: quoted,
    table: (name) => `${quoted}.${name}`,
    query: (text, values) => withClient((query) => query(text, values)),
    transaction: (body) =>
      withClient(async (query) => {
        await query('BEGIN');
        try {
          const result = await body(query);
          await query('COMMIT');
          return result;
        } catch (error) {
          // A failed ROLLBACK means the connection is gone; withClient then destroys it.
          await query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    async close() {
      if (closed) return;
      closed = true;
      if (options.ownsPool) await pool.end();
    },
    get closed() {
      return closed;
    },
  };
}
