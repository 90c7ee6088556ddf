import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Output goes through src/client/output; benchmarks write to process.stdout.
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-control-regex': 'off',
      // A closure may read a variable that is assigned once, later.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // A waitForFunction string is evaluated with eval, which the console's CSP refuses.
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='waitForFunction']",
          message: 'Use waitInPage (test/helpers/browser.ts): the console refuses eval.',
        },
      ],
    },
  },
  {
    // The mock console's pages: plain ES modules run by the browser, no build step.
    files: ['console/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // bin/ is CommonJS (bin/package.json), for start-up time, and so is the single executable's
    // main script (Node runs it as CommonJS), and the bench's loader with Node's compile cache.
    files: ['bin/**/*.js', 'scripts/sea/*.cjs', 'bench/lib/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
