import path from 'node:path';

import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './vite-precompress';
import { serviceWorker } from './vite-service-worker';

// The API serves dist/ at the site root (index.html for every unknown path), so
// asset URLs are absolute from /. Every route is its own lazy chunk: the
// JavaScript a visitor of / or a login page downloads stays small.
//
// The app is written against React's API and types, and runs on Preact's
// React-compatible runtime (preact/compat): ~12 kB gzip instead of React DOM's
// ~64 kB, which is most of what a phone on a slow link downloads before the
// login form (issue #18: <= 100 kB of initial JavaScript, form within 2 s on 3G).
const preactCompat = [
    { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
    { find: /^react-dom$/, replacement: 'preact/compat' },
    { find: /^react\/jsx-(dev-)?runtime$/, replacement: 'preact/jsx-runtime' },
    { find: /^react$/, replacement: 'preact/compat' },
];

export default defineConfig({
    base: '/',
    // Each text file also written Brotli- and gzip-compressed, served as they are (kit/static.py);
    // dist/sw.js, the service worker that opens the app offline (vite-service-worker.ts).
    plugins: [react(), serviceWorker(), precompress()],
    resolve: {
        alias: [
            ...preactCompat,
            // `@/lib/...` is `src/lib/...` (the same alias is in tsconfig.json "paths").
            { find: '@', replacement: path.resolve(import.meta.dirname, 'src') },
        ],
    },
    build: {
        outDir: 'dist',
        emptyOutDir: true,
        target: 'es2022',
        // scripts/report-bundle.mjs reads it to print what each route loads.
        manifest: true,
        rollupOptions: {
            output: {
                // The runtime, the router and the translation runtime change rarely: one
                // long-cached vendor chunk (one request fewer on a slow link than two).
                manualChunks(id: string) {
                    if (/node_modules\/(preact|react-router|i18next|react-i18next|html-parse-stringify|void-elements|use-sync-external-store)\//.test(id)) {
                        return 'vendor';
                    }
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
