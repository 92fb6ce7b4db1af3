// Record now, process later, in Chromium: the console records the fake microphone (espeak-ng
// speech) while the browser is offline, keeps the recording in IndexedDB through a reload while
// uploads still fail, then uploads it once the connection returns; the worker (with the Gemini
// double) makes a consultation of it, with its transcript and draft on /consultations/{id}.
// Run by tests/e2e/test_web_capture.py (CHROMIUM_ARGS: the fake microphone).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, FIXTURES, openBrowser, screenshot, signInAs, TIMEOUT } from './lib.mjs';

const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const button = (page, name) => page.getByRole('button', { name, exact: true });
const items = page =>
    page.getByTestId('capture-item').evaluateAll(nodes =>
        nodes.map(node => ({
            state: node.dataset.state,
            size: node.querySelector('[data-testid="capture-size"]')?.textContent ?? '',
        })),
    );
const waitForState = async (page, state, timeout = TIMEOUT) => {
    await page.locator(`[data-testid="capture-item"][data-state="${state}"]`).first().waitFor({ timeout });
};

describe('record now, process later', () => {
    let browser;
    let page;
    const pageLog = [];
    const uploads = [];

    before(async () => {
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        page.on('console', message => {
            if (['error', 'warning'].includes(message.type())) pageLog.push(`${message.type()}: ${message.text()}`);
        });
        page.on('request', request => {
            if (request.url().includes('/api/recordings')) uploads.push(`${request.method()} ${new URL(request.url()).pathname}`);
        });
        await browser.context.grantPermissions(['microphone'], { origin: BASE_URL });
    });
    after(async () => {
        if (pageLog.length) console.log(`page console:\n  ${pageLog.join('\n  ')}`);
        await browser.close();
    });

    it('records offline after the consent step and keeps the recording queued', async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await page.getByTestId('capture-panel').waitFor();
        await browser.context.setOffline(true);
        await page.getByTestId('capture-offline').waitFor();
        await button(page, 'Record now, process later').click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        await dialog.waitFor();
        // The same optional patient reference as a live consultation's consent step.
        await dialog.getByText('Add a patient reference (optional)').click();
        await dialog.getByLabel('Record number').fill('KATH-20931');
        await button(dialog, 'The patient agrees: record').click();
        await waitForState(page, 'recording');
        await sleep(7000);
        await screenshot(page, 'capture-recording');
        await button(page, 'Stop recording').click();
        await waitForState(page, 'queued');
        const [queued] = await items(page);
        assert.equal(queued.state, 'queued');
        assert.match(queued.size, /\d+ kB/);
        assert.ok(!uploads.some(line => line.startsWith('PUT')), 'nothing was uploaded while offline');
    });

    it('keeps both recordings through a reload, even one cut off mid-recording, while uploads fail', async () => {
        // The connection is back, but the uploads still fail (creating it works, chunks do not).
        await page.route('**/api/recordings/*/chunks**', route => route.abort('connectionreset'));
        await browser.context.setOffline(false);
        // A second recording, and the tab goes away while it records.
        await button(page, 'Record now, process later').click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        await button(dialog, 'The patient agrees: record').click();
        await waitForState(page, 'recording');
        await sleep(5000);
        await page.reload();
        await page.getByTestId('capture-list').waitFor();
        await sleep(3000);
        const after = await items(page);
        assert.equal(after.length, 2, JSON.stringify(after));
        for (const item of after) {
            assert.ok(['queued', 'uploading'].includes(item.state), JSON.stringify(after));
            assert.match(item.size, /\d+ kB/);
        }
        assert.ok(uploads.some(line => line.startsWith('PUT')), 'an upload was tried');
        await screenshot(page, 'capture-queued-after-reload');
    });

    it('uploads when the connection returns and opens the consultation with transcript and draft', async () => {
        await page.unroute('**/api/recordings/*/chunks**');
        await page.evaluate(() => window.dispatchEvent(new Event('online')));
        const deadline = Date.now() + 90_000;
        while (!(await items(page)).every(item => item.state === 'done')) {
            assert.ok(Date.now() < deadline, `not processed: ${JSON.stringify(await items(page))}`);
            await sleep(250);
        }
        // One upload on the server per capture, however many tries it took.
        // An access token of this browser's session (the app keeps its own in memory only).
        const token = await page.evaluate(
            async () =>
                (
                    await (
                        await fetch('/api/auth/refresh?app=web', { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' } })
                    ).json()
                ).token,
        );
        const listed = await fetch(`${BASE_URL}/api/recordings`, { headers: { Authorization: `Bearer ${token}` } });
        const body = await listed.json();
        assert.deepEqual(
            body.items.map(item => item.state),
            ['done', 'done'],
            JSON.stringify(body),
        );
        await screenshot(page, 'capture-done');
        // The first recording's consultation is filed under the patient given at its consent step.
        const references = [];
        for (const item of body.items) {
            const consultation = await fetch(`${BASE_URL}/api/consultations/${item.consultationId}`, {
                headers: { Authorization: `Bearer ${token}` },
            });
            references.push((await consultation.json()).patientReference?.recordNumber ?? null);
        }
        assert.deepEqual(references.sort(), ['KATH-20931', null].sort(), JSON.stringify(references));

        await page.getByTestId('capture-open').last().click();
        await page.getByTestId('consultation-page').waitFor();
        assert.match(new URL(page.url()).pathname, /^\/consultations\/[0-9a-f-]{36}$/);
        const lines = page.getByTestId('transcript-line');
        await lines.first().waitFor();
        assert.match(await lines.first().textContent(), /\[Gemini double\] Recording of \d+ seconds transcribed\./);
        await page.getByTestId('draft').first().waitFor();
        assert.match(await page.locator('.cons-facts').textContent(), /Recorded offline/);
        await screenshot(page, 'capture-consultation');
        assert.deepEqual(browser.pageErrors, []);
    });
});
