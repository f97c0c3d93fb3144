/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL into the database and, with
 * synchronous=NORMAL, fsyncs both: done by the serving connection (SQLite's automatic
 * checkpoint every 1,000 pages) that fsync stalls every request in flight. So the serving
 * connection turns automatic checkpoints off and a worker thread with a connection of its own
 * runs a PASSIVE checkpoint every interval (any connection may checkpoint a WAL database;
 * PASSIVE never blocks writers). Durability is unchanged: commits are in the WAL either way.
 */
import { Worker } from 'node:worker_threads';

// An eval'd worker (CommonJS), so it runs the same from src/ and from a build.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path, { timeout: workerData.busyTimeoutMs });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const run = () => { try { checkpoint.get(); } catch { /* busy or closing: next time */ } };
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

export function startCheckpointer(
  path: string,
  intervalMs: number,
  busyTimeoutMs: number,
): Checkpointer {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { path, intervalMs, busyTimeoutMs },
    execArgv: ['--disable-warning=ExperimentalWarning'],
  });
  worker.unref(); // never keeps the process alive
  worker.on('error', () => undefined); // a failed checkpoint is retried; it never fails a request
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('exit', () => resolve());
        worker.ref(); // keep the process alive until the last checkpoint is done
        worker.postMessage('stop');
      }),
  };
}
