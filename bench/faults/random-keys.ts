/**
 * `node bench/faults/random-keys.ts [--seconds S] [--prefill N] [--flood-rate R]
 * [--connections C]`: a flood of requests signed with made-up client keys (each request a
 * new `oauth_consumer_key`), against good HMAC-SHA1 `/api/me` traffic on the embedded store.
 *
 * 1. the good load alone for S seconds (default 20): its throughput;
 * 2. N made-up-key requests as fast as they are answered (default 110,000: past the memory
 *    rate counters' 100,000 keys, where a counter per key used to make every insert scan);
 * 3. the good load again for S seconds while the made-up keys go on at R a second (default
 *    500): its throughput, and how the flood was answered (401 until the address is over
 *    its failure limit, then 429);
 * 4. the good load alone once more (the figure without the flood is the mean of 1 and 4).
 *
 * Prints one summary line for docs/benchmarks.md: good throughput during the flood as a
 * share of without it (the target is at least 80 %).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { signRequest } from '../../src/client/index.ts';
import { runGenerator, runScript, startServer } from '../processes.ts';
import { scenarios } from '../scenarios.ts';
import type { SeededCredentials } from '../seed/seed-latchkey.ts';
import { SERVE_NODE_FLAGS } from '../serve-flags.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    prefill: { type: 'string', default: '110000' },
    'flood-rate': { type: 'string', default: '500' },
    connections: { type: 'string', default: '20' },
  },
});
const seconds = Number(values.seconds);
const prefill = Number(values.prefill);
const floodRate = Number(values['flood-rate']);
const connections = Number(values.connections);
const log = (line: string) => console.log(line);

/** Made-up-key requests from one process over keep-alive sockets; counts answers by status. */
class Flood {
  readonly statuses = new Map<number, number>();
  sent = 0;
  #stopped = false;
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

  readonly port: number;

  constructor(port: number) {
    this.port = port;
  }

  /** `total` requests (unpaced), or until stop() at `rate` a second. */
  async run(options: { total?: number; rate?: number }): Promise<void> {
    const started = performance.now();
    let sent = 0; // by this run
    this.#stopped = false;
    const lane = async () => {
      for (;;) {
        if (this.#stopped || (options.total !== undefined && sent >= options.total)) return;
        if (options.rate !== undefined) {
          const due = started + (sent / options.rate) * 1000;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          if (this.#stopped) return;
        }
        sent += 1;
        this.sent += 1;
        const status = await this.#one();
        this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  }

  stop(): void {
    this.#stopped = true;
  }

  #one(): Promise<number> {
    const url = `http://127.0.0.1:${this.port}/api/me`;
    const signed = signRequest({
      method: 'GET',
      url,
      client: { key: `made-up-${randomBytes(12).toString('hex')}`, secret: 'anything' },
    });
    return new Promise((resolve) => {
      const request = http.get(url, { agent: this.#agent, headers: signed.headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', () => resolve(0));
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

const dir = mkdtempSync(`${tmpdir()}/latchkey-random-keys-`);
try {
  const database = `${dir}/latchkey.db`;
  const credentials = await runScript<SeededCredentials>([
    'bench/seed/seed-latchkey.ts',
    '--database',
    database,
  ]);
  const server = await startServer(['bench/servers/latchkey.ts', '--database', database], {
    nodeFlags: SERVE_NODE_FLAGS,
  });
  const hmac = scenarios.find((s) => s.id === 'hmac-sha1')!;
  const goodLoad = () =>
    runGenerator({
      load: {
        host: '127.0.0.1',
        port: server.port,
        connections,
        warmupMs: 2000,
        durationMs: seconds * 1000,
        serverPids: [server.pid],
      },
      workload: hmac.workload({ host: `127.0.0.1:${server.port}`, credentials, poolSize: 0 }),
    });
  const flood = new Flood(server.port);
  try {
    const alone = await goodLoad();
    log(`good load alone: ${Math.round(alone.rps)} requests/s, p99 ${alone.latency.p99} ms`);
    const began = performance.now();
    await flood.run({ total: prefill });
    const prefillSeconds = (performance.now() - began) / 1000;
    log(
      `${prefill.toLocaleString('en-US')} made-up keys sent in ${prefillSeconds.toFixed(1)} s ` +
        `(${Math.round(prefill / prefillSeconds)}/s)`,
    );
    const during = flood.run({ rate: floodRate });
    const flooded = await goodLoad();
    flood.stop();
    await during;
    log(
      `good load during a flood at ${floodRate}/s: ${Math.round(flooded.rps)} requests/s, ` +
        `p99 ${flooded.latency.p99} ms`,
    );
    const after = await goodLoad();
    log(`good load alone again: ${Math.round(after.rps)} requests/s, p99 ${after.latency.p99} ms`);
    // Without the flood: the mean of before and after, so the JIT's warm-up favours neither.
    const without = (alone.rps + after.rps) / 2;
    const answers = [...flood.statuses].map(([status, n]) => `${status}: ${n}`).join(', ');
    log(`the flood's answers: ${answers}`);
    log(
      `summary: good throughput ${Math.round(flooded.rps)}/s during a made-up-key flood ` +
        `(${flood.sent.toLocaleString('en-US')} keys in all) = ${((flooded.rps / without) * 100).toFixed(0)} % ` +
        `of ${Math.round(without)}/s without it, before and after (target ≥ 80 %)`,
    );
  } finally {
    flood.close();
    await server.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
