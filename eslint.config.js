// Lint: typescript-eslint's recommended rules, plus the architecture's import direction
// (protocol -> store -> provider -> http/web -> cli; client beside protocol), enforced here
// rather than only in review (docs/architecture.md "Layers"). http and web reach the store
// only through the provider, the one door to the rules.
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

const layerRules = Object.entries(layers).map(([layer, forbidden]) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((name) => ({
          group: [`**/${name}/**`, `**/${name}.ts`, `../${name}`],
          message: `src/${layer} may not import from src/${name} (docs/architecture.md: imports go one way).`,
        })),
      },
    ],
  },
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
