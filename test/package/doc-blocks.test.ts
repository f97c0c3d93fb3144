// The code blocks of README.md and docs/*.md, each sorted by what a reader does with it
// (test/package/doc-blocks.ts): nothing unsorted, fragments only where marked, every program
// given what it needs (its frameworks to install, a route to request), and the shell blocks
// grouped into the scenarios check:package runs.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import {
  checkedDocs,
  codeBlocks,
  commands,
  firstRoute,
  importedPackages,
  kindOf,
} from './doc-blocks.ts';
import { scenarios } from '../../scripts/package-docs.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the docs code blocks check:package runs', () => {
  const blocks = checkedDocs(root).flatMap((file) => codeBlocks(root, file));
  const programs = blocks.filter((block) => kindOf(block) === 'program');

  it('sorts every block of README.md and docs/*.md: none has an unknown language', () => {
    const unsorted = blocks.filter((block) => kindOf(block) === undefined);
    assert.deepEqual(
      unsorted.map((block) => `${block.file}:${block.line} ${block.language || '(none)'}`),
      [],
    );
  });

  it('finds the programs of README.md, middleware.md and lti.md', () => {
    const count = (file: string) => programs.filter((block) => block.file === file).length;
    assert.equal(count('README.md'), 2);
    assert.equal(count('docs/middleware.md'), 4);
    assert.equal(count('docs/lti.md'), 2);
    assert.equal(programs.length, 8);
  });

  it('takes a block as a fragment only where `<!-- fragment -->` marks it', () => {
    const fragments = blocks.filter((block) => block.fragment);
    assert.ok(fragments.some((block) => block.code.startsWith('interface OAuthCaller {')));
    for (const block of fragments) assert.equal(kindOf(block), 'fragment');
    const marked = codeBlocks(root, 'docs/middleware.md').filter((block) => block.fragment);
    assert.equal(marked.length, 1);
  });

  it('names what each program imports and the route it serves', () => {
    const [fastify, express] = programs;
    assert.deepEqual(importedPackages(fastify!.code), ['fastify']);
    assert.deepEqual(importedPackages(express!.code), ['express']);
    assert.equal(firstRoute(fastify!.code), '/photos');
    assert.equal(firstRoute('http.createServer(handler)'), '/');
  });

  it('joins continued lines and drops comments when reading commands', () => {
    assert.deepEqual(commands('# a note\nA=1 \\\nnpx latchkey serve\n\nls   # list\n'), [
      'A=1  npx latchkey serve',
      'ls   # list',
    ]);
  });

  it('groups the shell blocks by section, the README walkthrough as one scenario', () => {
    const walk = scenarios(blocks).find(
      (scenario) => scenario.file === 'README.md' && scenario.section.startsWith('A walk'),
    );
    assert.ok(walk);
    assert.equal(walk.blocks.filter((block) => kindOf(block) === 'shell').length, 4);
    const readme = blocks.filter((block) => block.file === 'README.md');
    assert.deepEqual(
      readme.map((block) => kindOf(block)),
      [
        'checkout',
        'shell',
        'shell',
        'shell',
        'shell',
        'shell',
        'install',
        'program',
        'program',
        'shell',
        'shell',
        'shell',
        'shell',
      ],
    );
  });
});
