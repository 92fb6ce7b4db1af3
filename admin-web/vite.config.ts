import { fileURLToPath } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

import { precompress } from '../web/vite-precompress';

// The API serves dist/ at /admin/ (index.html for every unknown path below it),
// so every asset URL must be absolute under /admin/.
export default defineConfig({
    base: '/admin/',
    // Each text file also written Brotli- and gzip-compressed, served as they are (kit/static.py).
    plugins: [react(), precompress()],
    resolve: {
        // The API's generated types live once, in the web app; the console
        // imports them type-only (`import type … from '@api/schema'`), so
        // nothing of the web app ends up in this bundle.
        alias: {
            '@api/schema': fileURLToPath(new URL('../web/src/lib/api/schema.d.ts', import.meta.url)),
            // The brand's design tokens (plain values, no React): one source for both apps.
            '@cara/tokens': fileURLToPath(new URL('../web/src/components/ui/tokens.ts', import.meta.url)),
        },
    },
    build: {
        outDir: 'dist',
        emptyOutDir: true,
        target: 'es2022',
        // react-admin + MUI are large by nature; the warning threshold is the
        // gzip-independent raw size of the biggest vendor chunk.
        chunkSizeWarningLimit: 1200,
    },
    server: {
        port: 5174,
        // `npm run dev` against a local API (./ops/dev): same-origin /api calls.
        proxy: { '/api': process.env.CARA_API_URL ?? 'http://127.0.0.1:8000' },
    },
});
