/** How a benchmark server tells `bench/run.ts` it is listening: one JSON line on stdout. */
import type { AddressInfo } from 'node:net';

export function announceReady(address: AddressInfo | string | null, extra: object = {}): void {
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ ready: true, port, ...extra })}\n`);
}

/** `--port N` from argv; 0 (any free port) by default. */
export function portArgument(): number {
  const at = process.argv.indexOf('--port');
  return at < 0 ? 0 : Number(process.argv[at + 1]);
}
