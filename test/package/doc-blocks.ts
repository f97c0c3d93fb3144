/**
 * The code blocks of README.md and docs/*.md, sorted by what a reader does with each:
 * scripts/check-package.ts runs the programs and the shell blocks against the packed tarball
 * in a fresh project, test/docs/ checks the config files, and the samples (what a command
 * prints, a request on the wire) are only read. A block that is not whole says so with
 * `<!-- fragment -->` on the line before it (blank lines between allowed), and its prose says
 * why; every other block is run, or named as covered by another suite, never silently skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly code: string;
  readonly fragment: boolean;
  /** The `##` heading the block sits under ('' before the first): one scenario each. */
  readonly section: string;
}

/**
 * What a block is for:
 * - program: a JavaScript or TypeScript program, run by check:package;
 * - install: `npm install …` / `npm pkg set …` for those programs, run by check:package;
 * - shell: commands, run in order per section by check:package;
 * - checkout: `npm install`, `npm start`, `npm test` in this repository, run by .ci/run;
 * - config: a config file (JSON: test/docs; nginx and Caddy: test/edge and test/fleet);
 * - service: the /verify examples in other languages, run by test/edge/verify-api.test.ts;
 * - receiver: the webhook receiver of docs/webhooks.md, sent real deliveries by
 *   test/webhooks/docs-receiver.test.ts (it answers Latchkey, not a client);
 * - sample: output, a request on the wire, a diagram: read, not pasted;
 * - fragment: marked `<!-- fragment -->`.
 */
export type BlockKind =
  | 'program'
  | 'install'
  | 'shell'
  | 'checkout'
  | 'config'
  | 'service'
  | 'receiver'
  | 'sample'
  | 'fragment';

/** The files whose blocks are checked, relative to the repository. */
export function checkedDocs(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  for (let index = 0; index < lines.length; index++) {
    const heading = /^## (.*)$/.exec(lines[index]!);
    if (heading !== null) section = heading[1]!.trim();
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[index]!);
    if (open === null) continue;
    const indent = open[1]!.length;
    let previous = index - 1;
    while (previous >= 0 && lines[previous]!.trim() === '') previous--;
    const fragment = previous >= 0 && lines[previous]!.trim() === '<!-- fragment -->';
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) {
      body.push(lines[end]!.slice(indent));
      end++;
    }
    blocks.push({
      file,
      line: index + 1,
      language: open[2]!,
      code: `${body.join('\n')}\n`,
      fragment,
      section,
    });
    index = end;
  }
  return blocks;
}

/** A shell block's commands, continuation lines joined, comments and blank lines left out. */
export function commands(code: string): string[] {
  return code
    .replaceAll('\\\n', ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const SAMPLE_LANGUAGES = new Set(['text', 'console', 'http']);
const CONFIG_LANGUAGES = new Set(['json', 'nginx', 'caddyfile', 'yaml', 'ini']);
const SERVICE_LANGUAGES = new Set(['python', 'go', 'java']);

export function kindOf(block: CodeBlock): BlockKind | undefined {
  if (block.fragment) return 'fragment';
  if (SAMPLE_LANGUAGES.has(block.language)) return 'sample';
  if (CONFIG_LANGUAGES.has(block.language)) return 'config';
  if (SERVICE_LANGUAGES.has(block.language)) return 'service';
  if (['js', 'mjs', 'ts'].includes(block.language)) {
    return block.file === 'docs/webhooks.md' ? 'receiver' : 'program';
  }
  if (block.language !== 'sh') return undefined;
  const lines = commands(block.code).map((line) => line.replace(/\s+#.*$/, ''));
  if (lines.every((line) => /^npm (install|start|test)( && npm (start|test))?$/.test(line))) {
    return 'checkout';
  }
  if (lines.every((line) => /^npm (install \S|pkg set )/.test(line))) return 'install';
  return 'shell';
}

/** Packages a program imports by bare name (not `node:`, not `latchkey` itself). */
export function importedPackages(code: string): string[] {
  const names = new Set<string>();
  for (const match of code.matchAll(/^import\s+(?!type\b)[^'"]*from\s+'([^'./][^']*)'/gm)) {
    const name = match[1]!;
    if (name.startsWith('node:') || name === 'latchkey' || name.startsWith('latchkey/')) continue;
    names.add(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!);
  }
  return [...names];
}

/** The path a server program answers on: its first GET route, else `/`. */
export function firstRoute(code: string): string {
  return /\.get\(\s*'(\/[^']*)'/.exec(code)?.[1] ?? '/';
}
