import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { Plugin } from 'vite';

/**
 * `vite build` writes `dist/sw.js`: the hand-written worker `service-worker.js` with the list of
 * every file of the build (the bundle's scripts, styles and index.html, and public/'s files) and
 * a version made of their contents, so each build that changes a byte is a new worker that
 * caches the new files and drops the old ones (web/service-worker.js says how it answers).
 * Left out: the bundle report's manifest, the worker itself, robots.txt and .well-known/, which
 * only crawlers and people read.
 */
const SKIP = /^(\.vite\/|sw\.js$|robots\.txt$|\.well-known\/)/;

export const serviceWorker = (): Plugin => {
    let publicDir = '';
    let outDir = '';
    return {
        name: 'cara-service-worker',
        apply: 'build',
        configResolved(config) {
            publicDir = config.publicDir;
            outDir = path.resolve(config.root, config.build.outDir);
        },
        // Once the bundle is written (index.html is emitted last), before the precompression.
        writeBundle(_options, bundle) {
            const walk = (dir: string): string[] =>
                readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
                    const full = path.join(dir, entry.name);
                    return entry.isDirectory() ? walk(full) : [full];
                });
            const hash = createHash('sha256');
            const files: string[] = [];
            for (const [name, item] of Object.entries(bundle).sort(([a], [b]) => a.localeCompare(b))) {
                if (SKIP.test(name)) continue;
                files.push(name);
                hash.update(name).update(item.type === 'chunk' ? item.code : item.source);
            }
            if (publicDir) {
                for (const full of walk(publicDir).sort()) {
                    const name = path.relative(publicDir, full).split(path.sep).join('/');
                    if (SKIP.test(name)) continue;
                    files.push(name);
                    hash.update(name).update(readFileSync(full));
                }
            }
            const template = readFileSync(path.resolve(import.meta.dirname, 'service-worker.js'), 'utf8');
            const urls = files.map(name => (name === 'index.html' ? '/' : `/${name}`));
            const source = template
                .replace('__CARA_VERSION__', hash.digest('hex').slice(0, 16))
                .replace('__CARA_BUILT__', String(Date.now()))
                .replace('[/* __CARA_PRECACHE__ */]', JSON.stringify(urls));
            writeFileSync(path.join(outDir, 'sw.js'), source);
        },
    };
};
