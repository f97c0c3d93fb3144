/**
 * The load generator process. `bench/run.ts` starts it with a JSON config on stdin;
 * it prepares its workload (pre-signing where needed), pins itself to its core, runs, and
 * prints one JSON line: the LoadResult.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { flowWorkload } from './flow-workload.ts';
import type { FlowSpec } from './flow-workload.ts';
import { runLoad } from './load-run.ts';
import type { LoadOptions } from './load-run.ts';
import { presign } from './presign.ts';
import { nonceSource, RequestSigner } from './signed-request.ts';
import type { RequestSpec } from './signed-request.ts';
import { fixedWorkload, liveWorkload, poolWorkload } from './workload.ts';
import type { Workload } from './workload.ts';

export type WorkloadConfig =
  | { readonly kind: 'fixed'; readonly request: string }
  /** Signed live; with several specs (one per token) they take turns. */
  | { readonly kind: 'signed'; readonly specs: readonly RequestSpec[] }
  | { readonly kind: 'presigned'; readonly spec: RequestSpec; readonly count: number }
  | { readonly kind: 'flow'; readonly flow: FlowSpec }
  /**
   * Signed live as `spec`, and every `floodEvery`th request in the name of a client key no
   * one has, a new one each time (a flood of made-up keys); only `spec`'s answers succeed.
   */
  | { readonly kind: 'flooded'; readonly spec: RequestSpec; readonly floodEvery: number };

export interface GeneratorConfig {
  readonly load: LoadOptions;
  readonly workload: WorkloadConfig;
  /** CPU list for `taskset`, applied to every thread once the workload is ready. */
  readonly pin?: string | undefined;
}

async function prepare(config: WorkloadConfig): Promise<Workload> {
  switch (config.kind) {
    case 'fixed':
      return fixedWorkload(config.request);
    case 'signed': {
      const signers = config.specs.map((spec) => new RequestSigner(spec));
      signers[0]!.checkAgainstSdk();
      const nonce = nonceSource();
      let turn = 0;
      return liveWorkload(() => {
        const signer = signers[turn]!;
        turn = turn + 1 === signers.length ? 0 : turn + 1;
        return signer.build(nonce(), Math.floor(Date.now() / 1000));
      });
    }
    case 'presigned': {
      new RequestSigner(config.spec).checkAgainstSdk();
      return poolWorkload(await presign(config.spec, config.count));
    }
    case 'flow':
      return flowWorkload(config.flow);
    case 'flooded': {
      const signer = new RequestSigner(config.spec);
      signer.checkAgainstSdk();
      const nonce = nonceSource();
      const madeUp = madeUpKeys(config.spec);
      let turn = 0;
      return liveWorkload(() => {
        turn = turn + 1 === config.floodEvery ? 0 : turn + 1;
        const timestamp = Math.floor(Date.now() / 1000);
        return turn === 0 ? madeUp(nonce(), timestamp) : signer.build(nonce(), timestamp);
      });
    }
  }
}

/**
 * Requests in the name of a new made-up client key each (a random prefix and a counter):
 * well-formed and in the timestamp window, so the server looks the key up and refuses it
 * (401 consumer_key_unknown, then 429 once the address is over its failure limit).
 */
function madeUpKeys(spec: RequestSpec): (nonce: string, timestamp: number) => string {
  const prefix = `made-up-${randomBytes(6).toString('hex')}-`;
  let count = 0;
  return (nonce, timestamp) =>
    `GET ${spec.path} HTTP/1.1\r\nHost: ${spec.host}\r\nAuthorization: OAuth ` +
    `oauth_consumer_key="${prefix}${count++}", oauth_nonce="${nonce}", ` +
    `oauth_signature="unchecked", oauth_signature_method="HMAC-SHA1", ` +
    `oauth_timestamp="${timestamp}", oauth_version="1.0"\r\n\r\n`;
}

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const config = JSON.parse(input) as GeneratorConfig;
const workload = await prepare(config.workload);
if (config.pin !== undefined) {
  execFileSync('taskset', ['-a', '-p', '-c', config.pin, String(process.pid)], { stdio: 'ignore' });
}
const result = await runLoad(config.load, workload);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
