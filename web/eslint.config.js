import path from 'node:path';

import tseslint from 'typescript-eslint';

import { importOrderRule } from './eslint/import-order.js';
import { layersRule } from './eslint/layers.js';

// `npm run lint` (run by ./ops/test): the import boundaries of src/ (see
// eslint/layers.js and docs/architecture.md "Web app layers") and the order
// of imports (eslint/import-order.js). Types are checked by tsc,
// translations by scripts/check-i18n.mjs.
export default [
    { ignores: ['dist/**', 'node_modules/**', 'src/lib/api/schema.d.ts'] },
    {
        files: ['src/**/*.{ts,tsx}'],
        languageOptions: { parser: tseslint.parser, sourceType: 'module' },
        linterOptions: { reportUnusedDisableDirectives: 'error' },
        plugins: { cara: { rules: { layers: layersRule, 'import-order': importOrderRule } } },
        rules: {
            'cara/layers': ['error', { srcDir: path.resolve(import.meta.dirname, 'src') }],
            'cara/import-order': 'error',
        },
    },
];
