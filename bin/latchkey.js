#!/usr/bin/env node
// The `latchkey` command. Installed from the package it runs the compiled JavaScript in dist/;
// in a checkout of the sources it runs the TypeScript sources themselves, which Node 22.18 or
// newer runs directly (type stripping; Node refuses it inside node_modules, hence dist/).
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
const fromSource = existsSync(source);
if (fromSource && !process.features.typescript) {
  process.stderr.write(
    `latchkey needs Node.js 22.18 or newer, which runs TypeScript directly (this is ${process.version}).\n` +
      'Run it through the project, which brings its own Node:\n' +
      '  npm run latchkey -- <command>    or    npx latchkey <command>\n',
  );
  process.exit(1);
}
// Installed: on a Node the package does not support, one line naming the Node it needs and
// the command that gets it (dist/node-version.js imports nothing, so it loads on any Node).
if (!fromSource) {
  try {
    await import(new URL('../dist/node-version.js', import.meta.url).href);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
// Node 22 calls node:sqlite experimental and says so on every start (Node 24 no longer does);
// the embedded store is tested on both, so that one warning is left out and every other kept.
const [printWarning] = process.listeners('warning');
if (printWarning !== undefined) {
  process.off('warning', printWarning);
  process.on('warning', (warning) => {
    if (warning.name === 'ExperimentalWarning' && /SQLite/.test(warning.message)) return;
    printWarning(warning);
  });
}
// Node keeps each module's compiled code on disk and reuses it while the file is unchanged:
// `serve` starts about a quarter sooner (docs/benchmarks.md). NODE_COMPILE_CACHE chooses the
// directory (default: the system's temporary directory); a cache that cannot be written is
// skipped silently, never an error.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
await import(fromSource ? source.href : new URL('../dist/cli/main.js', import.meta.url).href);
