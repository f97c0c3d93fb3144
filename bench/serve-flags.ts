/**
 * The Node flags `npm start` gives `latchkey serve` (package.json "start"), so that every
 * benchmark server built as `latchkey serve` runs as the README and the service unit run it.
 * Read from package.json rather than repeated here, so the two cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { ROOT } from './processes.ts';

/** The `--…` arguments between `node` and the script in the start script. */
function nodeFlagsOf(startScript: string): string[] {
  const words = startScript.trim().split(/\s+/);
  if (words[0] !== 'node') return [];
  const flags: string[] = [];
  for (const word of words.slice(1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}

const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  scripts?: Record<string, string>;
};

export const SERVE_NODE_FLAGS: readonly string[] = nodeFlagsOf(manifest.scripts?.['start'] ?? '');
