/**
 * `node bench/capacity.ts [--requests N] [--instances 1,2]`: what one verified request costs
 * PostgreSQL and Redis on the scale-out path, the inputs of docs/deployment.md's capacity
 * table. Starts `latchkey serve` processes on PostgreSQL + Redis (a schema and key prefix of
 * its own, removed afterwards), sends N signed GET /api/me spread over them, and counts:
 *
 * - Redis: every command carrying the run's key prefix, seen with MONITOR (commands a script
 *   runs are counted apart from the calls), and the channel messages;
 * - PostgreSQL: table accesses (sequential and index scans) and rows written in the run's
 *   schema (pg_stat_user_tables deltas, read once the instances have exited, which flushes
 *   their statistics).
 *
 * Then this machine's own figures beside them: redis-benchmark running the nonce script's
 * shape, and pgbench's select-only run. Prints one JSON line.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createSigningFetch } from '../src/client/index.ts';
import { createProvider } from '../src/provider/index.ts';
import { openStore } from '../src/store/index.ts';
import { cpuSeconds } from './load/process-cpu.ts';
import { ROOT } from './processes.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '4000' },
    instances: { type: 'string', default: '1,2' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});
const requests = Number(values.requests);
const fleetSizes = values.instances.split(',').map(Number);
const postgresUrl = values.postgres;
const redisUrl = values.redis;
const CONCURRENCY = 16;

interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly port: number;
  readonly exited: Promise<unknown>;
}

async function serve(env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, [`${ROOT}bin/latchkey.js`, 'serve', '--port', '0'], {
    env: { ...process.env, ...env },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^Latchkey listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(output);
      if (match !== null) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error(`latchkey serve ended: ${output}`)));
  });
  return { child, port, exited };
}

async function tableStats(client: pg.Client, schema: string) {
  const { rows } = await client.query<{ relname: string; reads: string; writes: string }>(
    `SELECT relname,
            coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS reads,
            n_tup_ins + n_tup_upd + n_tup_del AS writes
       FROM pg_stat_user_tables WHERE schemaname = $1`,
    [schema],
  );
  return new Map(rows.map((row) => [row.relname, { reads: +row.reads, writes: +row.writes }]));
}

async function measure(instances: number) {
  const schema = `latchkey_capacity_${randomBytes(4).toString('hex')}`;
  const prefix = `latchkey-capacity-${randomBytes(4).toString('hex')}:`;
  const env = {
    LATCHKEY_DATABASE: postgresUrl,
    LATCHKEY_POSTGRES_SCHEMA: schema,
    LATCHKEY_REDIS: redisUrl,
    LATCHKEY_REDIS_PREFIX: prefix,
    LATCHKEY_LOG_LEVEL: 'silent',
  };
  const store = await openStore(postgresUrl, { redis: redisUrl, schema, redisPrefix: prefix });
  const provider = createProvider({ store });
  const registered = await provider.clients.register({ name: 'Capacity' });
  const owner = await provider.owners.create('capacity', 'a long password');
  const issued = await provider.tokens.issue({ clientKey: registered.key, ownerId: owner.id });
  await store.close();
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  const monitor = new Redis(redisUrl);
  const monitorless = new Redis(redisUrl);
  const served: Served[] = [];
  try {
    for (let i = 0; i < instances; i++) served.push(await serve(env));
    const signing = createSigningFetch({
      client: { key: registered.key, secret: registered.secret },
      token: { token: issued.token, secret: issued.secret },
    });
    const fetches = served.map((s) => () => signing(`http://127.0.0.1:${s.port}/api/me`));
    // Each instance reads the client and token once, before counting: the steady state.
    for (const send of fetches) await (await send()).text();
    // Statistics of the schema before: flushed by the seeding connection's exit above.
    const before = await tableStats(admin, schema);

    const counts = { calls: new Map<string, number>(), inScripts: new Map<string, number>() };
    let messages = 0;
    const watching = await monitor.monitor();
    watching.on('monitor', (_time: string, args: string[], source: string) => {
      if (!args.some((arg) => arg.startsWith(prefix))) return;
      const name = args[0]!.toLowerCase();
      const table = source.includes('lua') ? counts.inScripts : counts.calls;
      table.set(name, (table.get(name) ?? 0) + 1);
      if (name === 'publish') messages += 1;
    });

    let failed = 0;
    let firstFailure: string | undefined;
    /** `count` signed requests, CONCURRENCY at a time, spread over the instances. */
    const drive = async (count: number) => {
      let sent = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          while (sent < count) {
            sent += 1;
            const answer = await fetches[(sent + worker) % fetches.length]!();
            const body = await answer.text();
            if (answer.status !== 200 && failed++ === 0) firstFailure = `${answer.status} ${body}`;
          }
        }),
      );
    };
    await drive(requests);
    watching.disconnect();

    // A second pass, unwatched (MONITOR slows Redis): CPU time per request of the instances
    // and of Redis (its whole process: other clients of a shared Redis count too).
    const redisPid = Number(/process_id:(\d+)/.exec(await monitorless.info('server'))?.[1]);
    const instancePids = served.map((s) => s.child.pid!);
    const cpuBefore = [cpuSeconds(instancePids), cpuSeconds([redisPid])];
    const started = performance.now();
    await drive(requests);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = [cpuSeconds(instancePids), cpuSeconds([redisPid])];
    const microseconds = (index: number) =>
      cpuBefore[index] === undefined || cpuAfter[index] === undefined
        ? undefined
        : Math.round(((cpuAfter[index]! - cpuBefore[index]!) / requests) * 1e6);

    for (const s of served) s.child.kill('SIGTERM');
    await Promise.all(served.map((s) => s.exited));
    served.length = 0;
    const after = await tableStats(admin, schema);
    // The counts are of the first (watched) pass; PostgreSQL's cover both passes.
    const per = (n: number) => Number((n / requests).toFixed(4));
    const perBoth = (n: number) => Number((n / (2 * requests)).toFixed(4));
    const postgres: Record<string, { reads: number; writes: number }> = {};
    let reads = 0;
    let writes = 0;
    for (const [table, now] of after) {
      const was = before.get(table) ?? { reads: 0, writes: 0 };
      const delta = { reads: now.reads - was.reads, writes: now.writes - was.writes };
      if (delta.reads === 0 && delta.writes === 0) continue;
      postgres[table] = delta;
      reads += delta.reads;
      writes += delta.writes;
    }
    const sum = (table: Map<string, number>) => [...table.values()].reduce((a, b) => a + b, 0);
    return {
      instances,
      requests,
      failed,
      firstFailure,
      rps: Math.round(requests / seconds),
      cpuMicrosecondsPerRequest: { instances: microseconds(0), redis: microseconds(1) },
      redis: {
        callsPerRequest: per(sum(counts.calls)),
        scriptCommandsPerRequest: per(sum(counts.inScripts)),
        calls: Object.fromEntries(counts.calls),
        inScripts: Object.fromEntries(counts.inScripts),
        messages,
      },
      postgres: {
        tableReadsPerRequest: perBoth(reads),
        rowWritesPerRequest: perBoth(writes),
        tables: postgres,
      },
    };
  } finally {
    for (const s of served) s.child.kill('SIGKILL');
    monitor.disconnect();
    monitorless.disconnect();
    await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await admin.end();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.unlink(...keys);
    redis.disconnect();
  }
}

/** redis-benchmark on the nonce script's shape: SADD, TTL, and EXPIRE while the TTL is short. */
function redisBenchmark(): Record<string, number> {
  const tag = `latchkey-capacity-${randomBytes(4).toString('hex')}`;
  const script =
    "if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end " +
    "if redis.call('TTL', KEYS[1]) < 300 then redis.call('EXPIRE', KEYS[1], 360) end return 1";
  const run = (args: string[]) =>
    execFileSync(
      'redis-benchmark',
      ['-q', '-c', '50', '-n', '100000', '-r', '100000000', ...args],
      {
        encoding: 'utf8',
      },
    );
  const rate = (output: string) => Number(/([\d.]+) requests per second/.exec(output)?.[1] ?? NaN);
  const figures = {
    nonceScript: rate(run(['eval', script, '1', `${tag}:nonce:1`, '__rand_int__'])),
    sadd: rate(run(['sadd', `${tag}:set`, '__rand_int__'])),
    get: rate(run(['get', `${tag}:key`])),
  };
  execFileSync('redis-cli', ['unlink', `${tag}:nonce:1`, `${tag}:set`]);
  return figures;
}

/** pgbench's select-only run (one indexed row read per transaction) in a database of its own. */
async function pgbench(): Promise<Record<string, number>> {
  const name = `latchkey_capacity_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(postgresUrl);
    const connection = ['-h', url.hostname, '-p', url.port || '5432', '-U', url.username];
    execFileSync('pgbench', [...connection, '-i', '-q', '-s', '1', name], { stdio: 'ignore' });
    const tps = (args: string[]) => {
      const output = execFileSync('pgbench', [...connection, ...args, name], { encoding: 'utf8' });
      return Number(/tps = ([\d.]+)/.exec(output)?.[1] ?? NaN);
    };
    return {
      selectOnly: tps(['-S', '-c', '8', '-j', '2', '-T', '5']),
      tpcbLike: tps(['-c', '8', '-j', '2', '-T', '5']),
    };
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const runs = [];
for (const size of fleetSizes) runs.push(await measure(size));
const loadAverage = Number(
  execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ')[0],
);
process.stdout.write(
  `${JSON.stringify({ runs, redisBenchmark: redisBenchmark(), pgbench: await pgbench(), loadAverage })}\n`,
);
