// The live console on a real network's troubles, in Chromium, through the project's TCP shaping
// proxy (cara_devstack.netshape) with the Gemini double as the AI service. Run by
// tests/e2e/test_web_live_network.py, which also sets:
//
//   SHAPER_URL    the proxy's control endpoints (cut, stall, shape, state)
//   CONTROL_URL   the double's control endpoints (script it, read what it received)
//   CHROMIUM_ARGS JSON list of extra switches (fake microphone playing espeak-ng speech)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, FIXTURES, openBrowser, screenshot, signInAs, TIMEOUT } from './lib.mjs';

const SHAPER_URL = (process.env.SHAPER_URL ?? '').replace(/\/+$/, '');
const CONTROL_URL = (process.env.CONTROL_URL ?? '').replace(/\/+$/, '');
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');

const call = async (base, path, body) => {
    const response = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await response.json();
    assert.equal(response.status, 200, `${path}: ${JSON.stringify(payload)}`);
    return payload;
};
const control = (path, body) => call(CONTROL_URL, path, body);
const shaper = (path, body) => call(SHAPER_URL, path, body ?? {});
const sessions = () => control('/sessions');
/** Sends a server message (Gemini's wire JSON) on the double's newest Live connection. */
const serverSays = async message => {
    const all = await sessions();
    return control(`/sessions/${all.length - 1}/send`, { message });
};

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const waitFor = async (check, message, timeout = TIMEOUT) => {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
        last = await check();
        if (last) return last;
        await sleep(150);
    }
    throw new Error(`timed out: ${message} (last: ${JSON.stringify(last)})`);
};

const consoleData = (page, name) =>
    page.evaluate(key => document.querySelector('[data-testid="live-console"]')?.dataset[key] ?? null, name);
const statusIs = (page, text, timeout) =>
    page.getByTestId('console-status').filter({ hasText: text }).waitFor({ timeout });
const button = (page, name) => page.getByRole('button', { name, exact: true });
const lineTexts = page =>
    page.getByTestId('voice-panel').locator('[data-speaker]').evaluateAll(items =>
        items.map(item => `${item.dataset.speaker}: ${item.textContent.trim()}`),
    );

/** Connect, confirming the patient's consent when the console asks for it first. */
const connect = async page => {
    await button(page, 'Connect to Cara').click();
    const dialog = page.getByRole('dialog', { name: 'Patient consent' });
    const asked = await dialog.waitFor({ timeout: 3000 }).then(
        () => true,
        () => false,
    );
    if (asked) {
        await button(dialog, 'The patient agrees: start').click();
        await dialog.waitFor({ state: 'detached' });
    }
};

describe('live console on a bad network', () => {
    let browser;
    let page;
    const pageLog = [];

    before(async () => {
        assert.ok(CONTROL_URL && SHAPER_URL, 'run through tests/e2e/test_web_live_network.py');
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

    let consultation;
    let shown;

    it('connects through the proxy and holds a conversation', async () => {
        await control('/reset', {});
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await statusIs(page, 'Click to connect to Cara');
        await connect(page);
        await statusIs(page, 'Connected to Cara. You can now give voice commands.');
        consultation = await waitFor(() => consoleData(page, 'consultation'), 'the consultation id');
        await waitFor(async () => Number(await consoleData(page, 'audioChunks')) >= 8, 'microphone audio sent');
        await waitFor(async () => (await sessions()).length >= 1, 'a Live session');
        await serverSays({ serverContent: { inputTranscription: { text: 'Hey Cara, the patient has chest pain.' } } });
        await serverSays({ serverContent: { outputTranscription: { text: 'Noted: chest pain for two days.' } } });
        await serverSays({ serverContent: { turnComplete: true } });
        const voice = page.getByTestId('voice-panel');
        await voice.locator('[data-speaker="assistant"]').filter({ hasText: 'chest pain for two days' }).waitFor();
        // Mid-sentence: the doctor is speaking when the link goes.
        await serverSays({ serverContent: { inputTranscription: { text: 'He also smokes ten' } } });
        await voice.locator('[data-speaker="user"]').filter({ hasText: 'He also smokes ten' }).waitFor();
        shown = await lineTexts(page);
    });

    it('keeps the screen, the consultation and the audio through an 8 s cut, then rejoins it', async () => {
        const chunks = Number(await consoleData(page, 'audioChunks'));
        await shaper('/cut?seconds=8');
        await statusIs(page, 'Reconnecting to Cara...', 5000);
        await page.getByTestId('reconnect-notice').waitFor();
        // Nothing cleared: every line (the unfinished one too) is still on screen, same consultation.
        assert.deepEqual(await lineTexts(page), shown);
        assert.equal(await consoleData(page, 'consultation'), consultation);
        // The microphone keeps capturing: its audio waits for the socket.
        await page.getByTestId('offline-audio').waitFor({ timeout: 8000 });
        await screenshot(page, 'console-reconnecting');

        await statusIs(page, 'Connected to Cara. You can now give voice commands.', 30_000);
        assert.equal(await consoleData(page, 'consultation'), consultation, 'the same consultation');
        const texts = await lineTexts(page);
        for (const line of shown) assert.ok(texts.includes(line), `kept: ${line}`);
        assert.equal(new Set(texts).size, texts.length, `no line twice: ${JSON.stringify(texts)}`);
        // What was captured offline went up on rejoin, and capture goes on.
        await waitFor(async () => Number(await consoleData(page, 'audioChunks')) > chunks + 8, 'audio after rejoin');
        await page.getByTestId('offline-audio').waitFor({ state: 'detached' });
        const all = await sessions();
        assert.ok(all.length >= 2, 'the server opened the provider session again');
    });

    it("says 'Weak connection' within 3 s of a stalled link, and recovers", async () => {
        await shaper('/stall?seconds=6');
        const started = Date.now();
        await page.getByTestId('weak-connection').waitFor({ timeout: 5000 });
        const after = Date.now() - started;
        assert.ok(after <= 4500, `shown after ${after} ms`);
        await page.getByTestId('weak-connection').waitFor({ state: 'detached', timeout: 15_000 });
        await statusIs(page, 'Connected to Cara. You can now give voice commands.', 15_000);
        assert.equal(await consoleData(page, 'consultation'), consultation);
    });

    it('rejoins the same consultation with its lines after a reload', async () => {
        const texts = await lineTexts(page);
        await page.reload();
        await statusIs(page, 'Connected to Cara. You can now give voice commands.', 30_000);
        assert.equal(await consoleData(page, 'consultation'), consultation);
        const after = await lineTexts(page);
        for (const line of texts) assert.ok(after.includes(line), `kept after reload: ${line}`);
        await screenshot(page, 'console-rejoined-after-reload');
    });

    it('holds 60 s on a 3G-shaped link (750 down, 250 up, 100 ms) with no gap over 300 ms in a reply', async () => {
        await shaper('/shape', { upKbps: 250, downKbps: 750, rttMs: 100 });
        try {
            const scheduled = Number(await consoleData(page, 'playbackMs'));
            const started = Date.now();
            let replies = 0;
            while (Date.now() - started < 60_000) {
                // Cara speaks 4 s (0.2 s chunks, as the service streams them), then listens.
                const all = await sessions();
                await control(`/sessions/${all.length - 1}/audio`, { seconds: 4 });
                await serverSays({ serverContent: { turnComplete: true } });
                replies += 1;
                await sleep(8000);
            }
            assert.equal(await consoleData(page, 'state'), 'connected');
            const gap = Number(await consoleData(page, 'playbackMaxGap'));
            const played = Number(await consoleData(page, 'playbackMs')) - scheduled;
            const audio = await consoleData(page, 'audio');
            console.log(`3G link (${audio}): ${replies} replies, ${played} ms played, longest gap in a reply ${gap} ms`);
            // Every reply played whole (Opus frames pad the tail of a reply to 20 ms).
            assert.ok(Math.abs(played - replies * 4000) <= replies * 40, `${played} ms for ${replies} replies of 4 s`);
            assert.ok(gap <= 300, `a gap of ${gap} ms in a reply`);
        } finally {
            await shaper('/shape', { upKbps: 0, downKbps: 0, rttMs: 0 });
        }
    });

    it('lets the doctor switch low-bandwidth mode from the tray', async () => {
        const toggle = button(page, 'Low-bandwidth mode');
        assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
        assert.equal(await consoleData(page, 'lowBandwidth'), 'false');
        await toggle.click();
        assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
        assert.equal(await toggle.getAttribute('title'), 'Low-bandwidth mode is on: click to turn it off');
        assert.equal(await consoleData(page, 'lowBandwidth'), 'true');
        await toggle.click();
        assert.equal(await consoleData(page, 'lowBandwidth'), 'false');
    });

    it('ends the consultation on Disconnect: the next Connect is a new one', async () => {
        await button(page, 'Disconnect from Cara').click();
        await statusIs(page, 'Click to connect to Cara');
        assert.equal(
            await page.evaluate(() => Object.keys(sessionStorage).filter(key => key.startsWith('cara.live.')).length),
            0,
        );
    });
});
