/** Human and JSON output. Secrets are printed only by the commands whose point they are. */

export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A note for the person at the terminal, kept off stdout so output can be piped. */
export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

/** Left-aligned columns with a header row. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `label: value` lines with the values aligned. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([label]) => label.length)) + 1;
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${value}`).join('\n');
}

/** A time in ISO 8601 (UTC, seconds), or a dash for none. */
export function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
