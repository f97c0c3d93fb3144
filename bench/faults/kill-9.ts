/**
 * `node bench/faults/kill-9.ts [--sqlite N] [--postgres N] [--out file.json]`: kill -9 of
 * `latchkey serve` under full load, N cycles in a row on the embedded store (default 20) and
 * on PostgreSQL + Redis (default 5; 127.0.0.1:5432 database test and 127.0.0.1:6379, or
 * LATCHKEY_TEST_POSTGRES / LATCHKEY_TEST_REDIS, under a schema and key prefix of this run,
 * removed afterwards). Prints each cycle and a summary line per store for docs/security.md
 * ("Figures under faults"); exits 1 when a token was lost, a replay accepted or the file
 * damaged. The CI version is test/faults/kill-9-serve.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { runKillCycles, temporaryDatabase } from './kill-9-cycles.ts';
import type { KillCyclesResult } from './kill-9-cycles.ts';

const { values } = parseArgs({
  options: {
    sqlite: { type: 'string', default: '20' },
    postgres: { type: 'string', default: '5' },
    out: { type: 'string' },
  },
});
const postgresUrl =
  process.env['LATCHKEY_TEST_POSTGRES'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env['LATCHKEY_TEST_REDIS'] ?? 'redis://127.0.0.1:6379';
const log = (line: string) => console.log(line);
const results: KillCyclesResult[] = [];

function summary(result: KillCyclesResult): string {
  return (
    `${result.store}: ${result.cycles.length} kills under load; ${result.tokensReturned} token ` +
    `credentials returned, ${result.tokensLost} lost; ${result.noncesAccepted} nonces accepted, ` +
    `${result.cycles.reduce((n, c) => n + c.replaysSent, 0)} replayed after the restarts, ` +
    `${result.replaysAccepted} accepted again; integrity_check failures ${result.integrityFailures}; ` +
    `unexpected answers ${result.unexpected}`
  );
}

const sqliteCycles = Number(values.sqlite);
if (sqliteCycles > 0) {
  const database = temporaryDatabase();
  try {
    log(`== SQLite: ${sqliteCycles} cycles`);
    results.push(await runKillCycles({ database: database.path, cycles: sqliteCycles, log }));
  } finally {
    database.remove();
  }
}

const postgresCycles = Number(values.postgres);
if (postgresCycles > 0) {
  const id = randomBytes(6).toString('hex');
  const schema = `latchkey_kill9_${id}`;
  const prefix = `latchkey-kill9-${id}:`;
  try {
    log(`== PostgreSQL + Redis: ${postgresCycles} cycles`);
    results.push(
      await runKillCycles({
        database: postgresUrl,
        redis: redisUrl,
        schema,
        prefix,
        cycles: postgresCycles,
        log,
      }),
    );
  } finally {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await client.end();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

for (const result of results) log(summary(result));
if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
const failed = results.some(
  (r) => r.tokensLost > 0 || r.replaysAccepted > 0 || r.integrityFailures > 0,
);
process.exit(failed ? 1 : 0);
