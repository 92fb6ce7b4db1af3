// The camera on a 3G uplink, in Chromium, through the project's TCP shaping proxy
// (cara_devstack.netshape) with the Gemini double as the AI service: full camera frames exceed a
// 128 kb/s uplink, and the console must see it from the server's measured delay (not from
// bufferedAmount), shrink then pause the frames with 'Weak connection — camera paused', and keep
// the delay the microphone's audio sees bounded. Run by tests/e2e/test_web_offline.py
// (test_web_uplink), which also sets SHAPER_URL and CHROMIUM_ARGS (fake microphone and camera).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, FIXTURES, openBrowser, screenshot, signInAs } from './lib.mjs';

const SHAPER_URL = (process.env.SHAPER_URL ?? '').replace(/\/+$/, '');
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');
const WATCH_MS = Number(process.env.UPLINK_WATCH_SECONDS ?? 60) * 1000;
const CONNECTED = 'Connected to Cara. You can now give voice commands.';

const shaper = async (path, body = {}) => {
    const response = await fetch(`${SHAPER_URL}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
    });
    assert.equal(response.status, 200, path);
    return response.json();
};
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const percentile = (values, p) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

describe('camera on a 3G uplink', () => {
    let browser;
    let page;
    const consoleData = name =>
        page.evaluate(key => document.querySelector('[data-testid="live-console"]')?.dataset[key] ?? null, name);

    before(async () => {
        assert.ok(SHAPER_URL, 'run through tests/e2e/test_web_offline.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        await browser.context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
    });
    after(async () => {
        await shaper('/shape', { upKbps: 0, downKbps: 0, rttMs: 0 }).catch(() => undefined);
        await browser.close();
    });

    it('pauses the camera on the measured delay and keeps the link quick for the audio', async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await page.getByRole('button', { name: 'Connect to Cara', exact: true }).click();
        await page.getByRole('dialog', { name: 'Patient consent' }).getByTestId('consent-confirm').click();
        await page.getByTestId('console-status').filter({ hasText: CONNECTED }).waitFor();
        await shaper('/shape', { upKbps: 128, downKbps: 384, rttMs: 150 }); // 3G
        await page.getByRole('button', { name: 'Camera', exact: true }).click();
        await page.waitForFunction(
            () => Number(document.querySelector('[data-testid="live-console"]')?.dataset.videoFrames ?? 0) >= 1,
        );
        const started = Date.now();
        const samples = [];
        const levels = [];
        let pausedShownAt = null;
        while (Date.now() - started < WATCH_MS) {
            const delay = await consoleData('linkDelay');
            const level = await consoleData('uplink');
            if (delay !== '' && delay !== null) samples.push({ at: Date.now() - started, delay: Number(delay), level });
            if (levels.at(-1)?.level !== level) levels.push({ at: Date.now() - started, level });
            if (pausedShownAt === null && (await page.getByTestId('camera-paused').count())) {
                pausedShownAt = Date.now() - started;
                await screenshot(page, 'uplink-camera-paused');
            }
            assert.equal(await consoleData('state'), 'connected', 'the socket held');
            await sleep(500);
        }
        const delays = samples.map(sample => sample.delay);
        const settled = samples.filter(sample => sample.at >= 20_000).map(sample => sample.delay);
        const frames = Number(await consoleData('videoFrames'));
        console.log(
            `3G camera: levels ${levels.map(l => `${l.level}@${(l.at / 1000).toFixed(1)}s`).join(' ')}; ` +
                `delay p50 ${percentile(delays, 50)} ms, max ${Math.max(...delays)} ms; after 20 s p90 ` +
                `${percentile(settled, 90)} ms, max ${Math.max(...settled)} ms; ${frames} frames sent; ` +
                `'camera paused' shown at ${pausedShownAt} ms`,
        );
        assert.ok(levels.some(l => l.level !== 'full'), 'the camera stepped down');
        assert.ok(pausedShownAt !== null, "'Weak connection — camera paused' was shown");
        assert.ok(percentile(settled, 90) < 2000, `the link's delay after 20 s: p90 ${percentile(settled, 90)} ms`);
    });

    it('brings the camera back when the link allows', async () => {
        await shaper('/shape', { upKbps: 0, downKbps: 0, rttMs: 0 });
        const frames = Number(await consoleData('videoFrames'));
        await page.waitForFunction(
            () => document.querySelector('[data-testid="live-console"]')?.dataset.uplink !== 'paused',
            undefined,
            { timeout: 90_000 },
        );
        await page.getByTestId('camera-paused').waitFor({ state: 'detached' });
        await page.waitForFunction(
            sent => Number(document.querySelector('[data-testid="live-console"]')?.dataset.videoFrames ?? 0) > sent,
            frames,
            { timeout: 15_000 },
        );
        assert.deepEqual(browser.pageErrors, []);
    });
});
