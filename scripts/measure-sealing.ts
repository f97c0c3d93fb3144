// The cost of secrets at rest on a cache miss (docs/security.md "Secrets at rest"): one
// AES-256-GCM open of a 256-bit secret (43 characters of base64url) with its row as
// additional data, as src/store/sealing.ts does when a client or token row is read. Prints
// the median of 7 runs of 20,000 opens, and a seal for comparison. Run:
// node scripts/measure-sealing.ts
import { randomBytes } from 'node:crypto';
import { newKey } from '../src/store/key-file.ts';
import { openWith, sealWith } from '../src/store/sealing.ts';

const key = newKey();
const secret = randomBytes(32).toString('base64url');
const context = `token_credentials/${randomBytes(16).toString('base64url')}`;
const sealed = sealWith(key, secret, context);
const count = 20_000;

function perOperation(work: () => void): number {
  const runs: number[] = [];
  for (let run = 0; run < 7; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) work();
    runs.push(Number(process.hrtime.bigint() - start) / count);
  }
  runs.sort((a, b) => a - b);
  return runs[3]!;
}

let sink = 0;
// Warm-up, then the figures.
perOperation(() => (sink += openWith(key, sealed.value, context).length));
const open = perOperation(() => (sink += openWith(key, sealed.value, context).length));
const seal = perOperation(() => (sink += sealWith(key, secret, context).value.length));
console.log(
  `AES-256-GCM open: ${(open / 1000).toFixed(2)} µs, seal: ${(seal / 1000).toFixed(2)} µs ` +
    `(median of 7 × ${count}; Node ${process.version}; load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`,
);
if (sink === 0) console.log('');
