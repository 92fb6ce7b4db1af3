/* Cara's service worker: the app opens with no connection (web/vite-service-worker.ts builds
 * dist/sw.js from this file, filling in the version and the list of the build's files).
 *
 * - Install: every file of the build goes into this version's cache (scripts, styles, the four
 *   languages, icons, sounds), so a doctor who opened Cara once can open any page and console
 *   offline. The new worker takes over at once; the page keeps what it runs.
 * - Pages (navigations to a client route): the cached index.html, at once, online or not; a new
 *   build reaches the next visit, when this worker's update has been installed.
 * - The build's files: from the cache, else the network (and kept).
 * - Never cached or answered here: /api/ (every answer of the API, the live socket), /admin/
 *   (the admin console, its own app), other origins, anything but GET.
 * - Caches of older builds are deleted, the previous one excepted: a page still running the
 *   previous build can load its lazy chunks.
 */
const VERSION = '__CARA_VERSION__';
const BUILT = '__CARA_BUILT__';
const PRECACHE = [/* __CARA_PRECACHE__ */];
const PREFIX = 'cara-';
const CACHE = `${PREFIX}${BUILT}-${VERSION}`;
const KEEP = 2;

self.addEventListener('install', event => {
    event.waitUntil(
        (async () => {
            const cache = await caches.open(CACHE);
            await cache.addAll(PRECACHE.map(url => new Request(url, { cache: 'reload' })));
            await self.skipWaiting();
        })(),
    );
});

self.addEventListener('activate', event => {
    event.waitUntil(
        (async () => {
            const ours = (await caches.keys()).filter(name => name.startsWith(PREFIX)).sort();
            const keep = new Set([...ours.filter(name => name <= CACHE).slice(-KEEP), CACHE]);
            await Promise.all(ours.filter(name => !keep.has(name)).map(name => caches.delete(name)));
            await self.clients.claim();
        })(),
    );
});

const NOT_OURS = /^\/(api|admin)(\/|$)/;
const NAMES_A_FILE = /\.[A-Za-z0-9]{1,12}$|^\/\.well-known\//;

const fromCacheOrNetwork = async request => {
    const cached = await caches.match(request, { ignoreSearch: false });
    if (cached) return cached;
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') {
        const copy = response.clone();
        caches.open(CACHE).then(cache => cache.put(request, copy)).catch(() => undefined);
    }
    return response;
};

const appShell = async request => {
    const cache = await caches.open(CACHE);
    const shell = (await cache.match('/')) ?? (await caches.match('/'));
    if (shell) return shell;
    return fetch(request);
};

self.addEventListener('fetch', event => {
    const { request } = event;
    if (request.method !== 'GET') return;
    const url = new URL(request.url);
    if (url.origin !== self.location.origin || NOT_OURS.test(url.pathname)) return;
    if (request.mode === 'navigate') {
        if (NAMES_A_FILE.test(url.pathname)) return;
        event.respondWith(appShell(request));
        return;
    }
    if (url.search) return; // the build's files have none
    event.respondWith(fromCacheOrNetwork(request));
});
