import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import type { Plugin } from 'vite';

const TEXT = /\.(js|mjs|css|html|svg|json|txt|webmanifest)$/;
const MIN_BYTES = 1024;

/**
 * After `vite build`, every text file of the output of 1 kB or more gets a
 * Brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) twin beside it, kept
 * only when smaller. The API serves them as they are to clients that accept
 * the encoding (platform/cara/kit/static.py): no compression per request, and
 * smaller than on-the-fly gzip. Used by web/ and admin-web/.
 */
export const precompress = (): Plugin => {
    let outDir = '';
    return {
        name: 'cara-precompress',
        apply: 'build',
        configResolved(config) {
            outDir = path.resolve(config.root, config.build.outDir);
        },
        closeBundle() {
            const walk = (dir: string): string[] =>
                readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
                    const full = path.join(dir, entry.name);
                    return entry.isDirectory() ? walk(full) : [full];
                });
            for (const file of walk(outDir)) {
                if (!TEXT.test(file)) continue;
                const raw = readFileSync(file);
                if (raw.length < MIN_BYTES) continue;
                const br = brotliCompressSync(raw, {
                    params: {
                        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
                    },
                });
                if (br.length < raw.length) writeFileSync(`${file}.br`, br);
                const gz = gzipSync(raw, { level: 9 });
                if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
            }
        },
    };
};
