// Imports the module named on the command line and prints which database drivers it resolved
// (a resolve hook sees every import, static or dynamic, before it is loaded).
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

const drivers = new Set(['pg', 'ioredis']);
const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    if (drivers.has(specifier)) seen.add(specifier);
    return next(specifier, context);
  },
});
await import(pathToFileURL(process.argv[2]!).href);
const use = process.argv[3];
if (use !== undefined) {
  const { openStore } = await import(pathToFileURL('src/store/open.ts').href);
  await openStore(use).then(
    (store: { close(): Promise<void> }) => store.close(),
    () => undefined, // no server needed: the drivers are resolved before any connection
  );
}
process.stdout.write(JSON.stringify([...seen].sort()));
