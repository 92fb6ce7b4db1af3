// Driven by ops/bench/web_load.py (which serves the built apps): cold first
// loads of the public sign-in pages in Chromium on a throttled "3G" profile
// via the DevTools protocol, printing one JSON line per load.
//
//   BASE_URL   the server
//   PAGES      JSON [[name, path, selector of the login form's email field], ...]
//   RUNS       loads per page (each in a fresh context: cold cache)
//   THROTTLE   JSON {downKbps, upKbps, rttMs, cpu}

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const BASE_URL = process.env.BASE_URL;
const PAGES = JSON.parse(process.env.PAGES);
const RUNS = Number(process.env.RUNS ?? 3);
const THROTTLE = JSON.parse(process.env.THROTTLE);

const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
    for (let run = 0; run < RUNS; run += 1) {
        for (const [name, route, selector] of PAGES) {
            const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
            const page = await context.newPage();
            const cdp = await context.newCDPSession(page);
            await cdp.send('Network.enable');
            await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
            await cdp.send('Network.emulateNetworkConditions', {
                offline: false,
                latency: THROTTLE.rttMs,
                downloadThroughput: (THROTTLE.downKbps * 1000) / 8,
                uploadThroughput: (THROTTLE.upKbps * 1000) / 8,
            });
            await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE.cpu });
            // Bytes on the wire (compressed) per resource type, of the responses finished before
            // the form showed (what loads afterwards, e.g. the admin console's code fetched while
            // the admin types, is not part of the first load).
            const types = new Map();
            const bytes = { script: 0, stylesheet: 0, document: 0, other: 0 };
            let formShown = false;
            cdp.on('Network.responseReceived', event => types.set(event.requestId, event.type.toLowerCase()));
            cdp.on('Network.loadingFinished', event => {
                if (formShown) return;
                const type = types.get(event.requestId) ?? 'other';
                bytes[type in bytes ? type : 'other'] += event.encodedDataLength;
            });
            await page.goto(`${BASE_URL}${route}`, { waitUntil: 'commit', timeout: 120_000 });
            // performance.now() counts from the navigation's start.
            const visibleMs = await page.waitForFunction(
                sel => {
                    const el = document.querySelector(sel);
                    if (!el) return false;
                    const box = el.getBoundingClientRect();
                    return box.width > 0 && box.height > 0 ? performance.now() : false;
                },
                selector,
                { polling: 'raf', timeout: 120_000 },
            );
            formShown = true;
            const ms = await visibleMs.jsonValue();
            await page.waitForLoadState('networkidle').catch(() => {});
            console.log(JSON.stringify({ name, run, formVisibleMs: Math.round(ms), bytes }));
            await context.close();
        }
    }
} finally {
    await browser.close();
}
