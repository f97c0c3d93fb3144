// Imports 100,000 clients and 1,000,000 token credentials into a fresh embedded store with the
// real command (`latchkey import --create-owners`, a child process on this Node), then runs it
// again (every record unchanged) and exports everything, timing each from the outside. Not a
// test: a figure for docs/benchmarks.md ("Importing credentials").
//
//   node bench/import-million.ts [clients=100000] [tokens=1000000] [owners=50000]
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

const clients = Number(process.argv[2] ?? 100_000);
const tokens = Number(process.argv[3] ?? 1_000_000);
const owners = Number(process.argv[4] ?? 50_000);
const bin = fileURLToPath(new URL('../bin/latchkey.js', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'latchkey-import-bench-'));
const file = join(directory, 'credentials.jsonl');
const env = {
  ...process.env,
  LATCHKEY_DATABASE: join(directory, 'latchkey.db'),
  LATCHKEY_LOG_LEVEL: 'silent',
};

/** Secrets as another provider issues them: base64, with "+", "/" and "=". */
const secret = () => randomBytes(30).toString('base64');

async function writeFile(): Promise<void> {
  const out = createWriteStream(file);
  const write = async (record: object) => {
    if (!out.write(`${JSON.stringify(record)}\n`))
      await new Promise<void>((r) => out.once('drain', () => r()));
  };
  for (let i = 0; i < clients; i++) {
    await write({
      kind: 'client',
      key: `client-${i}`,
      secret: secret(),
      name: `App ${i}`,
      callbacks: [`https://app${i}.example/callback`],
      createdAt: '2020-01-01T00:00:00Z',
    });
  }
  for (let i = 0; i < tokens; i++) {
    await write({
      kind: 'token',
      token: `token-${i}-${randomBytes(6).toString('base64url')}`,
      secret: secret(),
      client: `client-${i % clients}`,
      owner: { username: `user${i % owners}` },
      scope: i % 3 === 0 ? 'read' : 'read write',
      issuedAt: 1_600_000_000 + i,
    });
  }
  out.end();
  await finished(out);
}

function timed(args: readonly string[]): { seconds: number; stdout: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, [bin, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`latchkey ${args.join(' ')}: ${result.stderr}`);
  return { seconds, stdout: result.stdout };
}

try {
  await writeFile();
  const megabytes = statSync(file).size / 1e6;
  const records = clients + tokens;
  const first = timed(['import', file, '--create-owners', '--json']);
  const report = JSON.parse(first.stdout) as {
    clients: { created: number };
    tokens: { created: number };
    ownersCreated: string[];
  };
  const again = timed(['import', file, '--json']);
  const exported = timed(['export', '--include-secrets']);
  const line = (what: string, seconds: number) =>
    `${what}: ${seconds.toFixed(1)} s (${Math.round(records / seconds).toLocaleString('en')} records/s)`;
  console.log(`file: ${records.toLocaleString('en')} records, ${megabytes.toFixed(0)} MB`);
  console.log(
    `${line('import', first.seconds)}: ${report.clients.created} clients, ${report.tokens.created} tokens, ${report.ownersCreated.length} owners created`,
  );
  console.log(line('import again (every record unchanged)', again.seconds));
  console.log(line('export --include-secrets', exported.seconds));
  console.log(`database: ${(statSync(env.LATCHKEY_DATABASE).size / 1e6).toFixed(0)} MB`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
