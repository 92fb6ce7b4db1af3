import path from 'node:path';

import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API serves dist/ at the site root (index.html for every unknown path), so
// asset URLs are absolute from /. Every route is its own lazy chunk: the
// JavaScript a visitor of / or a login page downloads stays small.
export default defineConfig({
    base: '/',
    plugins: [react()],
    // `@/lib/...` is `src/lib/...` (the same alias is in tsconfig.json "paths").
    resolve: { alias: { '@': path.resolve(import.meta.dirname, 'src') } },
    build: {
        outDir: 'dist',
        emptyOutDir: true,
        target: 'es2022',
        // scripts/report-bundle.mjs reads it to print what each route loads.
        manifest: true,
        rollupOptions: {
            output: {
                // React and the router change rarely: one long-cached vendor chunk.
                manualChunks(id: string) {
                    if (/node_modules\/(react|react-dom|scheduler|react-router)\//.test(id)) return 'vendor';
                    if (/node_modules\/(i18next|react-i18next)\//.test(id)) return 'i18n';
                    return undefined;
                },
            },
        },
    },
    server: {
        port: 5173,
        // `npm run dev` against a local API (./ops/dev): same-origin /api calls.
        // ws: the live assistant's WebSocket (/api/live) goes through the proxy too.
        proxy: { '/api': { target: process.env.CARA_API_URL ?? 'http://127.0.0.1:8000', ws: true } },
    },
});
