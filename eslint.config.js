// Lint: typescript-eslint's recommended rules, plus the architecture's import direction
// (protocol -> store -> provider -> http/web -> cli; client beside protocol), enforced here
// rather than only in review (docs/architecture.md "Layers"). http and web reach the store
// only through the provider, the one door to the rules.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Folders a layer must not import from (README.md and docs/architecture.md show the same). */
export const layers = {
  protocol: ['store', 'provider', 'http', 'web', 'cli', 'client'],
  client: ['store', 'provider', 'http', 'web', 'cli'],
  store: ['provider', 'http', 'web', 'cli', 'client'],
  provider: ['http', 'web', 'cli', 'client'],
  http: ['store', 'web', 'cli', 'client'],
  web: ['store', 'cli', 'client'],
};

const src = resolve(import.meta.dirname, 'src');
const { name: packageName } = JSON.parse(
  readFileSync(resolve(import.meta.dirname, 'package.json'), 'utf8'),
);

/** The module path a literal import source names (a template without expressions counts). */
function literalSource(node) {
  if (node?.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node?.type === 'TemplateLiteral' && node.expressions.length === 0) {
    return node.quasis[0]?.value.cooked ?? undefined;
  }
  return undefined;
}

/**
 * The import direction, by where a relative source resolves (a pattern on the text cannot tell
 * src/index.ts from a layer's own index.ts): static imports, `export … from`, `import()` with a literal
 * source, and src/index.ts (by path or by the package's name), which re-exports every layer, so
 * going through it is a layer break whatever the layer.
 */
const layerImports = {
  meta: {
    type: 'problem',
    schema: [{ type: 'array', items: { type: 'string' } }],
    messages: {
      layer:
        'src/{{layer}} may not import from src/{{target}} (docs/architecture.md: imports go one way).',
      index:
        'src/{{layer}} may not import src/index.ts: it re-exports every layer (docs/architecture.md: imports go one way).',
    },
  },
  create(context) {
    const forbidden = new Set(context.options[0] ?? []);
    const file = context.filename;
    const layer = relative(src, file).split(sep)[0];
    function check(node, source) {
      const path = literalSource(source);
      if (path === undefined) return;
      // The package's own name resolves to its entry, src/index.ts.
      if (path === packageName || path.startsWith(`${packageName}/`)) {
        context.report({ node, messageId: 'index', data: { layer } });
        return;
      }
      if (!path.startsWith('.')) return;
      const target = relative(src, resolve(dirname(file), path));
      if (target.startsWith('..')) return;
      if (target === 'index.ts' || target === 'index' || target === 'index.js') {
        context.report({ node, messageId: 'index', data: { layer } });
        return;
      }
      const top = target.split(sep)[0].replace(/\.(ts|js)$/, '');
      if (forbidden.has(top)) {
        context.report({ node, messageId: 'layer', data: { layer, target: top } });
      }
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

const layerRules = Object.entries(layers).map(([layer, forbidden]) => ({
  files: [`src/${layer}/**/*.ts`],
  plugins: { latchkey: { rules: { 'layer-imports': layerImports } } },
  rules: { 'latchkey/layer-imports': ['error', forbidden] },
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  ...layerRules,
);
