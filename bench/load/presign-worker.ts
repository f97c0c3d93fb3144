/** Worker thread: signs a share of a pre-signed pool (RSA signing is too slow to do live). */
import { parentPort, workerData } from 'node:worker_threads';
import { nonceSource, RequestSigner } from './signed-request.ts';
import type { RequestSpec } from './signed-request.ts';

const { spec, count } = workerData as { spec: RequestSpec; count: number };
const signer = new RequestSigner(spec);
const nonce = nonceSource();
const pool: string[] = new Array(count);
for (let i = 0; i < count; i++) pool[i] = signer.build(nonce(), Math.floor(Date.now() / 1000));
parentPort!.postMessage(pool);
