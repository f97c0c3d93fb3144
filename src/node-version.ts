/**
 * The Node.js versions Latchkey runs on, and the check made before anything needs them. The
 * embedded store uses node:sqlite with `StatementSync.setReturnArrays`, which Node 22 has
 * from 22.16 and Node 24 from 24.0 (Node 23 never had it; docs/decisions.md "The package").
 * package.json's `engines` says the same range (test/package/node-version.test.ts).
 *
 * Importing this module on an older Node throws an Error whose message is the one line to
 * show: the Node needed and the command that gets it. The package's entry (src/index.ts)
 * imports it first and `bin/latchkey.js` before the CLI, so neither dies on the loader's
 * "No such built-in module: node:sqlite". It imports nothing, so it loads on any Node.
 */

/** The supported range, as package.json's `engines.node` spells it. */
export const SUPPORTED_NODE = '^22.16.0 || >=24.0.0';

/** What to say on a Node outside {@link SUPPORTED_NODE}; undefined on one inside it. */
export function unsupportedNode(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if ((major === 22 && minor >= 16) || major >= 24) return undefined;
  return (
    `latchkey needs Node.js 22.16+ or 24+ (this is Node.js ${version}): add it to your ` +
    'project with `npm install -D node@24`, then run through npx (`npx latchkey serve`, ' +
    '`npx node app.js`)'
  );
}

const problem = unsupportedNode(process.versions.node);
if (problem !== undefined) throw new Error(problem);
