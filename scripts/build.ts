// Builds the package's dist/: the TypeScript sources compiled (tsconfig.build.json), then the
// pages' templates and static files beside the compiled web code, where it looks for them
// (src/web/render.ts, src/web/index.ts). dist/ is emptied first, so nothing stale is packed.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const dist = new URL('../dist/', import.meta.url);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
  cwd: new URL('..', import.meta.url),
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
for (const folder of ['views', 'static']) {
  cpSync(new URL(`../src/web/${folder}/`, import.meta.url), new URL(`web/${folder}/`, dist), {
    recursive: true,
  });
}
