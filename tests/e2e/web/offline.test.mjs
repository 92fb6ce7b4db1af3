// Cara with no connection, in Chromium, through the project's TCP shaping proxy
// (cara_devstack.netshape). Run by tests/e2e/test_web_offline.py, which also sets:
//
//   SHAPER_URL    the proxy's control endpoints (cut, stall, restore)
//   CONTROL_URL   the Gemini double's control endpoints
//   CHROMIUM_ARGS JSON list of extra switches (fake microphone playing espeak-ng speech)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, FIXTURES, openBrowser, screenshot, signInAs } from './lib.mjs';

const SHAPER_URL = (process.env.SHAPER_URL ?? '').replace(/\/+$/, '');
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');

const shaper = async (path, body = {}) => {
    const response = await fetch(`${SHAPER_URL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
    });
    assert.equal(response.status, 200, path);
    return response.json();
};

/** No link at all: the proxy refuses every connection, and the page's switch says offline. */
const goOffline = async context => {
    await shaper('/cut?seconds=600');
    await context.setOffline(true);
};
const goOnline = async context => {
    await shaper('/restore');
    await context.setOffline(false);
};

describe('Cara with no connection', () => {
    let browser;
    let page;
    const pageLog = [];

    before(async () => {
        assert.ok(SHAPER_URL, 'run through tests/e2e/test_web_offline.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        page.on('console', message => {
            if (['error', 'warning'].includes(message.type())) pageLog.push(`${message.type()}: ${message.text()}`);
        });
        await browser.context.grantPermissions(['microphone'], { origin: BASE_URL });
    });
    after(async () => {
        if (pageLog.length) console.log(`page console:\n  ${pageLog.join('\n  ')}`);
        await browser.close();
    });

    it('serves the real site files, and 404 for unknown ones', async () => {
        await page.goto(`${BASE_URL}/privacy-policy`);
        const answers = await page.evaluate(async () => {
            const result = {};
            for (const path of [
                '/robots.txt',
                '/favicon.ico',
                '/manifest.webmanifest',
                '/sw.js',
                '/.well-known/security.txt',
                '/icon-192.png',
                '/icon-512.png',
                '/no-such-file.png',
                '/.well-known/nothing',
                '/sitemap.xml',
            ]) {
                const response = await fetch(path, { cache: 'no-store' });
                result[path] = `${response.status} ${(response.headers.get('content-type') ?? '').split(';')[0]}`;
            }
            return result;
        });
        assert.deepEqual(answers, {
            '/robots.txt': '200 text/plain',
            '/favicon.ico': '200 image/x-icon',
            '/manifest.webmanifest': '200 application/manifest+json',
            '/sw.js': '200 text/javascript',
            '/.well-known/security.txt': '200 text/plain',
            '/icon-192.png': '200 image/png',
            '/icon-512.png': '200 image/png',
            '/no-such-file.png': '404 application/json',
            '/.well-known/nothing': '404 application/json',
            '/sitemap.xml': '404 application/json',
        });
    });

    it('installs: a manifest Chromium accepts and an active service worker controlling the page', async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await page.getByTestId('live-console').waitFor();
        const cdp = await browser.context.newCDPSession(page);
        const manifest = await cdp.send('Page.getAppManifest');
        assert.deepEqual(manifest.errors, [], JSON.stringify(manifest.errors));
        assert.ok(manifest.url.endsWith('/manifest.webmanifest'), manifest.url);
        await page.waitForFunction(
            async () => (await navigator.serviceWorker.ready).active?.state === 'activated',
        );
        const worker = await page.evaluate(async () => {
            const registration = await navigator.serviceWorker.ready;
            return { state: registration.active?.state, script: registration.active?.scriptURL };
        });
        assert.deepEqual(worker, { state: 'activated', script: `${BASE_URL}/sw.js` });
        // Every file of the build is cached before the worker activates; a page opened while
        // it was installing is controlled from its next load.
        if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
        await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
        const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
        assert.deepEqual(installabilityErrors, [], JSON.stringify(installabilityErrors));
        await cdp.detach();
    });

    it('reloads with no connection into the signed-in console, and opens its other pages', async () => {
        await goOffline(browser.context);
        try {
            // Nothing reaches the server: a request from the page itself fails.
            const reachable = await page.evaluate(() =>
                fetch('/api/health', { cache: 'no-store' }).then(
                    () => true,
                    () => false,
                ),
            );
            assert.equal(reachable, false);
            const response = await page.reload();
            assert.ok(response?.fromServiceWorker(), 'the page came from the service worker');
            await page.getByTestId('live-console').waitFor();
            await page.getByRole('button', { name: 'Connect to Cara', exact: true }).waitFor();
            await screenshot(page, 'offline-console-reloaded');
            // A console never opened online in this browser opens too (every chunk was cached).
            await page.goto(`${BASE_URL}/assistant`);
            await page.getByTestId('live-console').waitFor();
            assert.equal(new URL(page.url()).pathname, '/assistant');
        } finally {
            await goOnline(browser.context);
        }
    });

    it('renews the session when the browser is online again', async () => {
        await goOffline(browser.context);
        await page.reload();
        await page.getByTestId('live-console').waitFor();
        const seen = [];
        page.on('response', response => {
            if (response.url().includes('/api/auth/')) seen.push(`${response.url()} ${response.status()}`);
        });
        page.on('requestfailed', request => {
            if (request.url().includes('/api/auth/')) seen.push(`${request.url()} failed`);
        });
        const renewed = page.waitForResponse(
            response => response.url().includes('/api/auth/refresh') && response.status() === 200,
            { timeout: 10_000 },
        );
        await goOnline(browser.context); // the browser's `online` event
        await renewed.catch(error => {
            throw new Error(`${error}: ${JSON.stringify(seen)}`);
        });
        await page.getByTestId('live-console').waitFor();
        assert.equal(new URL(page.url()).pathname, '/assistant');
        assert.deepEqual(browser.pageErrors, []);
    });

    const captureStates = () =>
        page.locator('[data-testid="capture-item"]').evaluateAll(nodes => nodes.map(node => node.dataset.state));
    const connectButton = () => page.getByRole('button', { name: 'Connect to Cara', exact: true });

    it('offers "Record now, process later" when Connect finds the browser offline', async () => {
        await page.goto(`${BASE_URL}/radiologist`);
        await page.getByTestId('live-console').waitFor();
        await goOffline(browser.context);
        try {
            await connectButton().click();
            const dialog = page.getByRole('dialog', { name: 'Patient consent' });
            await dialog.getByTestId('consent-offline').waitFor();
            assert.equal(await dialog.getByTestId('consent-error').count(), 0, 'no network error shown');
            await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
            await dialog.waitFor({ state: 'detached' });
        } finally {
            await goOnline(browser.context);
        }
    });

    it('offers it when the browser is online but Cara cannot be reached, and records on consent', async () => {
        await page.goto(`${BASE_URL}/radiologist`);
        await page.getByTestId('live-console').waitFor();
        await shaper('/cut?seconds=600'); // the browser still says online: only the server is gone
        let uploadAsked = null;
        try {
            await connectButton().click();
            const dialog = page.getByRole('dialog', { name: 'Patient consent' });
            await dialog.getByTestId('consent-confirm').click();
            await dialog.getByTestId('consent-offline').waitFor();
            assert.equal(await dialog.getByTestId('consent-error').count(), 0, 'no network error shown');
            await screenshot(page, 'offline-consent-offers-recording');
            await dialog.getByTestId('consent-record').click();
            await dialog.waitFor({ state: 'detached' });
            await page.getByTestId('capture-stop').waitFor();
            await page.waitForTimeout(2500);
            await page.getByTestId('capture-stop').click();
            await page.waitForFunction(
                () => document.querySelector('[data-testid="capture-item"]')?.getAttribute('data-state') === 'queued',
            );
            // Offline for the browser too; the upload waits for the link, backing off.
            await browser.context.setOffline(true);
            await page.waitForTimeout(5000);
            page.on('request', request => {
                if (uploadAsked === null && request.url().includes('/api/recordings') && request.method() === 'POST')
                    uploadAsked = Date.now();
            });
        } finally {
            await shaper('/restore');
        }
        const back = Date.now();
        await browser.context.setOffline(false); // the browser's `online` event
        const deadline = Date.now() + 30_000;
        while (!(await captureStates()).every(state => ['processing', 'done'].includes(state))) {
            assert.ok(Date.now() < deadline, `not uploaded: ${JSON.stringify(await captureStates())}`);
            await page.waitForTimeout(100);
        }
        assert.ok(uploadAsked !== null, 'an upload request was made');
        assert.ok(uploadAsked - back < 1500, `upload started ${uploadAsked - back} ms after the browser went online`);
        console.log(`upload started ${uploadAsked - back} ms after the online event`);
        assert.deepEqual(browser.pageErrors, []);
    });
});
