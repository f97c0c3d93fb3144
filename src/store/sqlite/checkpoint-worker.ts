/**
 * The checkpoint worker's thread (started by checkpointer.ts, which explains the policy): a
 * connection of its own to the database file, a PASSIVE checkpoint every interval, a RESTART
 * once the log passes the bound, a TRUNCATE when the file is far past it. It tells its
 * starter of every RESTART or TRUNCATE (when asked) and of every failure other than a busy
 * lock (another connection holds it: the next interval tries again), once per distinct
 * message, so a lasting fault (a full disk) is reported once and not every second.
 */
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointResult, CheckpointWorkerData, WorkerMessage } from './checkpointer.ts';

const port = parentPort;
if (port === null) throw new Error('checkpoint-worker.ts runs as a worker thread only');
const settings = workerData as CheckpointWorkerData;

function post(message: WorkerMessage): void {
  port!.postMessage(message);
}

/** SQLITE_BUSY or SQLITE_LOCKED, whatever the extended code. */
function isBusy(error: unknown): boolean {
  if (!(error instanceof Error) || !('errcode' in error)) return false;
  const primary = Number(error.errcode) & 0xff;
  return primary === 5 || primary === 6;
}

let lastReported: string | undefined;
function report(error: unknown): void {
  if (isBusy(error)) return;
  const message = error instanceof Error ? error.message : String(error);
  if (message === lastReported) return;
  lastReported = message;
  post({ kind: 'error', message });
}

let db: DatabaseSync;
try {
  db = new DatabaseSync(settings.path, { timeout: settings.busyTimeoutMs });
} catch (error) {
  // Nothing to checkpoint: say why and end (the starter's stop() then resolves at once).
  report(error);
  port.close();
  throw error;
}

const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
// A WAL frame: a 24-byte header and a page.
const pageSize = db.prepare('PRAGMA page_size').get() as { page_size: number };
const frameBytes = Number(pageSize.page_size) + 24;

function walFileSize(): number {
  try {
    return statSync(`${settings.path}-wal`).size;
  } catch {
    return 0;
  }
}

function tell(mode: 'restart' | 'truncate', pass: CheckpointResult, result: CheckpointResult) {
  if (settings.report) {
    post({ kind: 'checkpoint', mode, logBytes: pass.log * frameBytes, busy: result.busy !== 0 });
  }
}

function run(): void {
  try {
    // log: the frames in use since the last restart.
    const pass = passive.get() as unknown as CheckpointResult;
    // What the passive pass left is what arrived meanwhile: little to copy and to sync while
    // writers are held back.
    if (pass.log * frameBytes > settings.maxWalBytes) {
      tell('restart', pass, restart.get() as unknown as CheckpointResult);
    } else if (walFileSize() > 4 * settings.maxWalBytes) {
      tell('truncate', pass, truncate.get() as unknown as CheckpointResult);
    }
    lastReported = undefined; // a later failure is news again
  } catch (error) {
    report(error);
  }
}

const timer = setInterval(run, settings.intervalMs);
port.on('message', () => {
  clearInterval(timer);
  run();
  db.close();
  port.close();
});
