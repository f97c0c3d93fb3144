/**
 * Reading a transfer file (`latchkey import`): JSON Lines, one record an object a line, handed
 * on with its line number. A line that is not JSON is handed on as UnreadableLine so the
 * import reports it with the others; blank lines are skipped (but counted).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { UnreadableLine } from '../provider/index.ts';
import type { NumberedValue } from '../provider/index.ts';

export interface ReadProgress {
  /** Bytes read so far (for a progress bar over the file's size). */
  bytes: number;
}

export async function* readRecords(
  file: string,
  progress?: ReadProgress,
  /** Lines to pass over without parsing (a later pass wants one kind of record). */
  skip?: (line: number) => boolean,
): AsyncGenerator<NumberedValue> {
  const stream = createReadStream(file);
  if (progress !== undefined) stream.on('data', (chunk) => (progress.bytes += chunk.length));
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (skip?.(line) === true) continue;
    // A byte-order mark some editors put first is not part of the JSON.
    const json = line === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (json.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (error) {
      value = new UnreadableLine(
        `not a JSON object (${error instanceof Error ? error.message : 'unreadable'}).`,
      );
    }
    yield { line, value };
  }
}
