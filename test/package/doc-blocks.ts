/**
 * The code blocks of the docs a user pastes (README.md, docs/middleware.md), for
 * scripts/check-package.ts, which runs them against the packed tarball in a fresh project.
 * A block that is not a whole program says so with `<!-- fragment -->` on the line before it
 * (blank lines between allowed); every other block is run or named as not run, never
 * silently skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly code: string;
  readonly fragment: boolean;
}

/** The files whose blocks are checked, relative to the repository. */
export const CHECKED_DOCS = ['README.md', 'docs/middleware.md'] as const;

export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
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
    });
    index = end;
  }
  return blocks;
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
