// The code blocks scripts/check-package.ts runs against the packed tarball: found in the docs
// it checks, fragments only where marked, and every program given what it needs (its
// frameworks to install, a route to request).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { CHECKED_DOCS, codeBlocks, firstRoute, importedPackages } from './doc-blocks.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the docs code blocks check:package runs', () => {
  const blocks = CHECKED_DOCS.flatMap((file) => codeBlocks(root, file));
  const programs = blocks.filter((block) => !block.fragment && /^(js|ts)$/.test(block.language));

  it('finds the README snippets and the middleware examples, and only marked fragments', () => {
    assert.equal(programs.filter((block) => block.file === 'README.md').length, 2);
    assert.equal(programs.filter((block) => block.file === 'docs/middleware.md').length, 3);
    const fragments = blocks.filter((block) => block.fragment);
    assert.deepEqual(
      fragments.map((block) => block.code.split('\n')[0]),
      ['interface OAuthCaller {'],
    );
  });

  it('names what each program imports and the route it serves', () => {
    const [fastify, express] = programs;
    assert.deepEqual(importedPackages(fastify!.code), ['fastify']);
    assert.deepEqual(importedPackages(express!.code), ['express']);
    assert.equal(firstRoute(fastify!.code), '/photos');
    assert.equal(firstRoute('http.createServer(handler)'), '/');
  });
});
