/**
 * A progress bar on the terminal for long commands (`latchkey import`), from cli-progress:
 * drawn on stderr only when stderr is a terminal, so piped and logged output stays clean.
 */
import { SingleBar } from 'cli-progress';

export interface Progress {
  /** Starts a phase (replacing the previous bar) with its total and unit. */
  phase(label: string, total: number, unit: string): void;
  update(value: number): void;
  stop(): void;
}

const silent: Progress = { phase() {}, update() {}, stop() {} };

export function progressBar(enabled: boolean): Progress {
  if (!enabled || process.stderr.isTTY !== true) return silent;
  let bar: SingleBar | undefined;
  return {
    phase(label, total, unit) {
      bar?.stop();
      bar = new SingleBar({
        stream: process.stderr,
        format: `${label.padEnd(8)} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta_formatted}`,
        barsize: 30,
        hideCursor: true,
        etaBuffer: 50,
      });
      bar.start(total, 0);
    },
    update(value) {
      bar?.update(value);
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
