#!/usr/bin/env node
// The `latchkey` command. The sources are TypeScript that Node runs directly (type
// stripping: Node 22.18 or newer); on an older Node say how to run it instead of failing
// with a syntax error.
if (!process.features.typescript) {
  process.stderr.write(
    `latchkey needs Node.js 22.18 or newer, which runs TypeScript directly (this is ${process.version}).\n` +
      'Run it through the project, which brings its own Node:\n' +
      '  npm run latchkey -- <command>    or    npx latchkey <command>\n',
  );
  process.exit(1);
}
// Node keeps each module's type-stripped source and compiled code on disk and reuses them
// while the file is unchanged: `serve` starts about a quarter sooner (docs/benchmarks.md).
// NODE_COMPILE_CACHE chooses the directory (default: the system's temporary directory); a
// cache that cannot be written is skipped silently, never an error.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
await import('../src/cli/main.ts');
