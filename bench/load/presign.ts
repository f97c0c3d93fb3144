/**
 * Pre-signs a pool of requests on every core before a run (fresh nonces, current
 * timestamps), for methods whose live signing would make the generator the bottleneck.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RequestSpec } from './signed-request.ts';

export async function presign(spec: RequestSpec, count: number): Promise<string[]> {
  const workers = Math.max(1, Math.min(availableParallelism(), 8));
  const share = Math.ceil(count / workers);
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, i) => {
      const size = Math.max(0, Math.min(share, count - i * share));
      return new Promise<string[]>((resolve, reject) => {
        const worker = new Worker(new URL('./presign-worker.ts', import.meta.url), {
          workerData: { spec, count: size },
        });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
  return parts.flat();
}
