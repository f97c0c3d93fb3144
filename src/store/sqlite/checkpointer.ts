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
import { Worker } from 'node:worker_threads';

// An eval'd worker (CommonJS), so it runs the same from src/ and from a build.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path, { timeout: workerData.busyTimeoutMs });
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
// A WAL frame: a 24-byte header and a page.
const frameBytes = Number(db.prepare('PRAGMA page_size').get().page_size) + 24;
const fileSize = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
const run = () => {
  try {
    // { busy, log, checkpointed }: log is the frames in use since the last restart.
    const pass = passive.get();
    // What the passive pass left is what arrived meanwhile: little to copy and to sync while
    // writers are held back.
    if (pass.log * frameBytes > workerData.maxWalBytes) report('restart', pass, restart.get());
    else if (fileSize() > 4 * workerData.maxWalBytes) report('truncate', pass, truncate.get());
  } catch { /* busy or closing: next time */ }
};
const report = (mode, pass, result) => {
  if (workerData.report) parentPort.postMessage({ mode, logBytes: pass.log * frameBytes, busy: result.busy !== 0 });
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  run();
  db.close();
  parentPort.close();
});
`;

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

/**
 * The log size past which the worker restarts it. It grows about 3 MB a second at full load
 * (a page or two per group commit), so this is a restart every few seconds. Disk for it is
 * part of every live nonce's cost (docs/benchmarks.md): with 60 s of nonces at 26,000 a
 * second, each 1 MiB is 0.7 bytes per nonce.
 */
export const MAX_WAL_BYTES = 16 * 1024 * 1024;

export function startCheckpointer(
  path: string,
  intervalMs: number,
  busyTimeoutMs: number,
  maxWalBytes = MAX_WAL_BYTES,
  onCheckpoint?: (report: CheckpointReport) => void,
): Checkpointer {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      path,
      intervalMs,
      busyTimeoutMs,
      maxWalBytes,
      report: onCheckpoint !== undefined,
    },
    execArgv: ['--disable-warning=ExperimentalWarning'],
  });
  worker.unref(); // never keeps the process alive
  worker.on('error', () => undefined); // a failed checkpoint is retried; it never fails a request
  if (onCheckpoint) worker.on('message', onCheckpoint);
  // A worker that died (it could not open the file) never exits again: stop() must not wait.
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
