// ESLint flat config: the recommended rules, Node globals, ES modules.
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: ['node_modules/', 'runs/', 'experiments/*/runs/', '.tmp/', '.venv-moto/'],
  },
  {
    files: ['src/**/*.js', 'test/**/*.js', 'bench/**/*.js', 'scripts/**/*.js', 'deploy/**/*.js', '*.js'],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: { ...globals.node },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      ...js.configs.recommended.rules,
      // A rest sibling in a destructuring is how a property is left out of a copy.
      'no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // the browser tests hand functions to page.evaluate(), which run in the page: window, document
    files: ['test/helpers/browser.js', 'test/e2e/html-report.test.js'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];
