/**
 * The service worker (dist/sw.js, built by vite-service-worker.ts from service-worker.js): once
 * installed, the app and its consoles open with no connection. Registered after the page has
 * loaded, so its downloads never compete with the first page's; not in `npm run dev`, whose
 * files are not the build's.
 */
export const registerServiceWorker = (): void => {
    if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
    const register = (): void => {
        navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
    };
    if (document.readyState === 'complete') register();
    else window.addEventListener('load', register, { once: true });
};
