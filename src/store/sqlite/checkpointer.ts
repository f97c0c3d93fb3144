/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL into the database and, with
 * synchronous=NORMAL, fsyncs both: done by the serving connection (SQLite's automatic
 * checkpoint every 1,000 pages) that fsync stalls every request in flight. So the serving
 * connection turns automatic checkpoints off and a worker thread with a connection of its own
 * runs a PASSIVE checkpoint every interval (any connection may checkpoint a WAL database;
 * PASSIVE never blocks writers). Durability is unchanged: commits are in the WAL either way.
 *
 * Under steady writes a PASSIVE checkpoint never catches up with the writer, and SQLite
 * restarts the log only after a checkpoint that did, so the WAL would grow without end. Once
 * the log holds more than `maxWalBytes` of frames the worker follows the PASSIVE pass with a
 * RESTART checkpoint: it holds new writes back while it copies what arrived since the passive
 * pass (little, so little to sync) and makes the next commit write from the log's start. The
 * file keeps its size and is reused, so the WAL on disk stays near `maxWalBytes`. TRUNCATE
 * would also shrink the file, but the truncation and its sync happen while writes are held:
 * 6–8 ms under load against 0.1–3.4 ms for RESTART (measured), and every held commit is a
 * request waiting for its answer. Only a file past four times the bound (after a burst that
 * outran the checkpoints) is truncated. The nonce commit does not sleep on that lock; it
 * retries from the event loop (nonces.ts).
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

export interface Checkpointer {
  /** Runs a last checkpoint and ends the worker. */
  stop(): Promise<void>;
}

/** A RESTART or TRUNCATE checkpoint the worker ran, and the log that called for it. */
export interface CheckpointReport {
  readonly mode: 'restart' | 'truncate';
  /** The log's frames in use after the PASSIVE pass, in bytes. */
  readonly logBytes: number;
  /** True when another connection held it back and it did not complete. */
  readonly busy: boolean;
}

/** What the worker is started with (checkpoint-worker.ts). */
export interface CheckpointWorkerData {
  readonly path: string;
  readonly intervalMs: number;
  readonly busyTimeoutMs: number;
  readonly maxWalBytes: number;
  /** Whether to post a CheckpointReport for each RESTART or TRUNCATE. */
  readonly report: boolean;
}

/** `PRAGMA wal_checkpoint`'s row: busy, frames in the log, frames checkpointed. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/** What the worker posts. */
export type WorkerMessage =
  | ({ readonly kind: 'checkpoint' } & CheckpointReport)
  | { readonly kind: 'error'; readonly message: string };

/**
 * The log size past which the worker restarts it. It grows about 3 MB a second at full load
 * (a page or two per group commit), so this is a restart every few seconds. Disk for it is
 * part of every live nonce's cost (docs/benchmarks.md): with 60 s of nonces at 26,000 a
 * second, each 1 MiB is 0.7 bytes per nonce.
 */
export const MAX_WAL_BYTES = 16 * 1024 * 1024;

export interface CheckpointerOptions {
  readonly path: string;
  readonly intervalMs: number;
  readonly busyTimeoutMs: number;
  readonly maxWalBytes?: number | undefined;
  /** Told of each RESTART or TRUNCATE checkpoint (diagnostics, tests). */
  readonly onCheckpoint?: ((report: CheckpointReport) => void) | undefined;
  /**
   * Told of a checkpoint that failed for another reason than a busy lock (a full disk, an
   * unreadable file), once until checkpoints succeed again. Without it the failure becomes a
   * process warning (stderr). It never fails a request: commits are in the WAL either way.
   */
  readonly onError?: ((error: Error) => void) | undefined;
}

/** The worker module beside this one: .ts from the sources, .js from the built package. */
const workerUrl = new URL(
  `./checkpoint-worker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
);

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const onError =
    options.onError ??
    ((error: Error) => process.emitWarning(error.message, { code: 'LATCHKEY_CHECKPOINT' }));
  const data: CheckpointWorkerData = {
    path: options.path,
    intervalMs: options.intervalMs,
    busyTimeoutMs: options.busyTimeoutMs,
    maxWalBytes: options.maxWalBytes ?? MAX_WAL_BYTES,
    report: options.onCheckpoint !== undefined,
  };
  const worker = new Worker(workerUrl, {
    workerData: data,
    execArgv: ['--disable-warning=ExperimentalWarning'],
  });
  worker.unref(); // never keeps the process alive
  worker.on('message', (message: WorkerMessage) => {
    if (message.kind === 'error') {
      onError(new Error(`SQLite checkpoint of ${options.path} failed: ${message.message}`));
    } else {
      const { kind: _kind, ...report } = message;
      options.onCheckpoint?.(report);
    }
  });
  // An uncaught error ends the worker: it was reported by message when it could be.
  worker.on('error', () => undefined);
  // A worker that ended (it could not open the file) never exits again: stop() must not wait.
  let exited = false;
  worker.once('exit', () => (exited = true));
  return {
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        worker.once('exit', () => resolve());
        worker.ref(); // keep the process alive until the last checkpoint is done
        worker.postMessage('stop');
      }),
  };
}
