// Driven by ops/bench/live_bandwidth_browser.py: one live consultation per mode in Chromium, its
// bytes counted by the TCP proxy (cara_devstack.netshape) between the browser and the API.
// Prints one JSON line per mode: {"mode", "seconds", "bytesUp", "bytesDown", "audio", "videoFrames"}.
//
//   BASE_URL      the proxy in front of the API
//   SHAPER_URL    the proxy's control endpoints (counters/reset, state)
//   EMAIL         a doctor's sign-in (a Radiologist: the console at /radiologist), and PASSWORD
//   MODES         JSON [{name, pcm, camera, low}]: pcm hides WebCodecs (the negotiated fallback),
//                 camera turns the fake camera on, low switches low-bandwidth mode on first
//   SECONDS       measured seconds per mode; WARMUP seconds before the counters are zeroed
//   CHROMIUM_ARGS JSON list of extra switches (fake microphone playing the espeak-ng WAV)

import { createRequire } from 'node:module';

const require = createRequire(new URL('../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const BASE_URL = process.env.BASE_URL.replace(/\/+$/, '');
const SHAPER_URL = process.env.SHAPER_URL.replace(/\/+$/, '');
const EMAIL = process.env.EMAIL;
const PASSWORD = process.env.PASSWORD;
const MODES = JSON.parse(process.env.MODES);
const SECONDS = Number(process.env.SECONDS ?? 30);
const WARMUP = Number(process.env.WARMUP ?? 4);
const EXTRA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');
const TIMEOUT = 30_000;

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const shaper = async (path, post) => {
    const response = await fetch(`${SHAPER_URL}${path}`, { method: post ? 'POST' : 'GET' });
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    return response.json();
};
const consoleData = (page, name) =>
    page.evaluate(key => document.querySelector('[data-testid="live-console"]')?.dataset[key] ?? null, name);
const waitFor = async (check, message) => {
    const deadline = Date.now() + TIMEOUT;
    while (Date.now() < deadline) {
        if (await check()) return;
        await sleep(200);
    }
    throw new Error(`timed out: ${message}`);
};

const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-quic',
        '--autoplay-policy=no-user-gesture-required',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        ...EXTRA_ARGS,
    ],
});
try {
    for (const mode of MODES) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        context.setDefaultTimeout(TIMEOUT);
        await context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
        if (mode.pcm) {
            // A browser without WebCodecs: the console negotiates today's base64 PCM in JSON.
            await context.addInitScript(() => {
                delete window.AudioEncoder;
                delete window.AudioDecoder;
            });
        }
        const page = await context.newPage();
        // Signed in through the form, as a doctor does; the app lands on the console of the specialty.
        await page.goto(`${BASE_URL}/doctor-login`);
        await page.getByLabel('Email', { exact: true }).fill(EMAIL);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Login', exact: true }).click();
        await page.waitForURL(current => new URL(current).pathname === '/radiologist');
        const connect = page.getByRole('button', { name: 'Connect to Cara', exact: true });
        await connect.waitFor().catch(async error => {
            const text = (await page.locator('body').innerText()).slice(0, 500);
            throw new Error(`no Connect button at ${page.url()}: ${text}`, { cause: error });
        });
        await connect.click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        if (await dialog.waitFor({ timeout: 3000 }).then(() => true, () => false)) {
            await dialog.getByRole('button', { name: 'The patient agrees: start', exact: true }).click();
            await dialog.waitFor({ state: 'detached' });
        }
        await waitFor(async () => (await consoleData(page, 'state')) === 'connected', 'connected');
        if (mode.low) {
            await page.getByRole('button', { name: 'Low-bandwidth mode', exact: true }).click();
            await waitFor(async () => (await consoleData(page, 'lowBandwidth')) === 'true', 'low-bandwidth mode');
        }
        if (mode.camera) {
            await page.getByRole('button', { name: 'Camera', exact: true }).click();
            await waitFor(async () => Number(await consoleData(page, 'videoFrames')) >= 1, 'a camera frame sent');
        }
        await sleep(WARMUP * 1000);
        const framesBefore = Number((await consoleData(page, 'videoFrames')) ?? 0);
        await shaper('/counters/reset', true);
        const started = Date.now();
        await sleep(SECONDS * 1000);
        const state = await shaper('/state');
        const seconds = (Date.now() - started) / 1000;
        const audio = await consoleData(page, 'audio');
        const frames = Number((await consoleData(page, 'videoFrames')) ?? 0) - framesBefore;
        const connected = (await consoleData(page, 'state')) === 'connected';
        console.log(
            JSON.stringify({
                mode: mode.name,
                seconds,
                bytesUp: state.bytesUp,
                bytesDown: state.bytesDown,
                audio,
                videoFrames: frames,
                connected,
            }),
        );
        await page.getByRole('button', { name: 'Disconnect from Cara', exact: true }).click();
        await context.close();
    }
} finally {
    await browser.close();
}
