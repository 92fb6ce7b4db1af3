import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API serves dist/ at /admin/ (index.html for every unknown path below it),
// so every asset URL must be absolute under /admin/.
export default defineConfig({
    base: '/admin/',
    plugins: [react()],
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
