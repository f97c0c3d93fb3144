// Every module in src/ is short enough to read at once and every function short enough to
// follow: no file over 400 lines, no function (declaration, method, arrow or expression,
// closures included) over 100. Read with the TypeScript compiler's parser, so a function is
// measured from its first line to its closing brace. A file marked `@generated` in its header
// is left out.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import ts from 'typescript';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 100;

/** A function's name: its own, the variable or property it is assigned to, or its place. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile, outer: string): string {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    parent.initializer === node
  ) {
    return parent.name.getText(source);
  }
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return `${outer === '' ? '' : `${outer} > `}function at line ${line}`;
}

/** Every function of a file, as `file name`, with its length in lines. */
function functionLengths(file: string, text: string): Map<string, number> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lengths = new Map<string, number>();
  const visit = (node: ts.Node, outer: string): void => {
    let name = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      name = nameOf(node, source, outer);
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      lengths.set(
        `${file} ${name}`,
        Math.max(lengths.get(`${file} ${name}`) ?? 0, last - first + 1),
      );
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(source, '');
  return lengths;
}

/** Each function of `file` longer than the limit, as `file name (lines)`. */
function functionsOver(file: string, text: string): string[] {
  return [...functionLengths(file, text)]
    .filter(([, lines]) => lines > MAX_FUNCTION_LINES)
    .map(([entry, lines]) => `${entry} (${lines} lines)`);
}

const files = globSync('src/**/*.ts')
  .map((file) => file.replaceAll('\\', '/'))
  .sort()
  .map((file) => ({ file, text: readFileSync(file, 'utf8') }))
  .filter(({ text }) => !/@generated\b/.test(text.slice(0, 500)));

describe('The size of the source', () => {
  it(`has no file in src/ over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map(({ file, text }) => ({ file, lines: text.split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ file, lines }) => `${file} (${lines} lines)`);
    assert.deepEqual(long, []);
  });

  it(`has no function in src/ over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap(({ file, text }) => functionsOver(file, text));
    assert.deepEqual(long, []);
  });
});
