// The live console through long outages, in Chromium, through the project's TCP shaping proxy
// (cara_devstack.netshape) with the Gemini double as the AI service: it keeps trying with a
// countdown and 'Retry now' for as long as the outage lasts, and is back within 3 s of the link's
// return. Run by tests/e2e/test_web_offline.py (test_web_reconnect), which also sets:
//
//   SHAPER_URL    the proxy's control endpoints (cut, stall, restore)
//   CHROMIUM_ARGS JSON list of extra switches (fake microphone playing espeak-ng speech)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, FIXTURES, openBrowser, screenshot, signInAs } from './lib.mjs';

const SHAPER_URL = (process.env.SHAPER_URL ?? '').replace(/\/+$/, '');
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');
const OUTAGE_MS = Number(process.env.OUTAGE_SECONDS ?? 45) * 1000;
const BACK_WITHIN_MS = 3000;

const shaper = async path => {
    const response = await fetch(`${SHAPER_URL}${path}`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 200, path);
    return response.json();
};
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const CONNECTED = 'Connected to Cara. You can now give voice commands.';

describe('live console through long outages', () => {
    let browser;
    let page;
    let sockets = 0;
    let consultation;

    const consoleData = name =>
        page.evaluate(key => document.querySelector('[data-testid="live-console"]')?.dataset[key] ?? null, name);
    const status = () => page.getByTestId('console-status').textContent();
    const notice = () => page.getByTestId('reconnect-notice');

    /** Through an outage of OUTAGE_MS: always trying, always saying when; back within 3 s. */
    const rideOut = async (kind, label) => {
        const before = sockets;
        await shaper(`/${kind}?seconds=600`);
        await page.getByTestId('console-status').filter({ hasText: 'Reconnecting to Cara...' }).waitFor({ timeout: 15_000 });
        const started = Date.now();
        const seen = new Set();
        while (Date.now() - started < OUTAGE_MS) {
            // Every moment of the outage: the notice, a countdown or a try under way, and 'Retry now'.
            assert.equal(await consoleData('state'), 'reconnecting');
            await notice().waitFor({ timeout: 1000 });
            const countdown = await page.getByTestId('reconnect-countdown').textContent();
            assert.match(countdown, /^(Trying again in \d+ s\.|Trying to reconnect now\.\.\.)$/);
            seen.add(countdown.startsWith('Trying again') ? 'countdown' : 'trying');
            await notice().getByRole('button', { name: 'Retry now', exact: true }).waitFor({ timeout: 1000 });
            await sleep(500);
        }
        const attempts = sockets - before;
        await screenshot(page, `reconnect-during-${kind}`);
        assert.ok(seen.has('countdown'), `a countdown was shown during the ${label}`);
        // Attempts go on to the end: more than one, and one in the last 20 s of the outage at least.
        assert.ok(attempts >= 3, `${attempts} attempts during a ${OUTAGE_MS / 1000} s ${label}`);
        const back = Date.now();
        await shaper('/restore');
        await page.getByTestId('console-status').filter({ hasText: CONNECTED }).waitFor({ timeout: 20_000 });
        const took = Date.now() - back;
        console.log(`${label} of ${OUTAGE_MS / 1000} s: ${attempts} attempts, connected ${took} ms after the link returned`);
        assert.ok(took <= BACK_WITHIN_MS, `connected ${took} ms after the link returned (${label})`);
        assert.equal(await consoleData('consultation'), consultation, 'the same consultation');
    };

    before(async () => {
        assert.ok(SHAPER_URL, 'run through tests/e2e/test_web_offline.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        page.on('websocket', socket => {
            if (socket.url().includes('/api/live')) sockets += 1;
        });
        await browser.context.grantPermissions(['microphone'], { origin: BASE_URL });
    });
    after(async () => {
        await browser.close();
    });

    it('connects through the proxy', async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await page.getByRole('button', { name: 'Connect to Cara', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        await dialog.getByTestId('consent-confirm').click();
        await page.getByTestId('console-status').filter({ hasText: CONNECTED }).waitFor();
        consultation = await consoleData('consultation');
        assert.ok(consultation);
    });

    it("'Retry now' tries at once during a cut", async () => {
        await shaper('/cut?seconds=600');
        try {
            await notice().waitFor({ timeout: 15_000 });
            const before = sockets;
            await notice().getByRole('button', { name: 'Retry now', exact: true }).click();
            const deadline = Date.now() + 1000;
            while (sockets === before && Date.now() < deadline) await sleep(50);
            assert.ok(sockets > before, 'a new socket right after the click');
        } finally {
            await shaper('/restore');
        }
        await page.getByTestId('console-status').filter({ hasText: CONNECTED }).waitFor({ timeout: 20_000 });
    });

    it('keeps trying through a long cut and is back within 3 s of the link', async () => {
        await rideOut('cut', 'cut');
    });

    it('keeps trying through a long stall and is back within 3 s of the link', async () => {
        await rideOut('stall', 'stall');
        assert.equal(await status(), CONNECTED);
        assert.deepEqual(browser.pageErrors, []);
    });
});
