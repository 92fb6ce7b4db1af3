// Studies brought into the radiologist's console (issue 31, item 1-2): the panel waits for a
// consultation (consent, then connect), files chosen with the picker are stored, a zip dropped on
// the zone is stored with its progress shown on a slow link, a file that is not DICOM is refused
// by name, the consultation's studies are listed; axe on the panel, French and Arabic texts, a
// phone-width page. Run by tests/e2e/test_web_imaging.py (Gemini double, real Orthanc).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { assertAccessible, BASE_URL, FIXTURES, openBrowser, screenshot, signInAs, TIMEOUT } from './lib.mjs';

const CONTROL_URL = (process.env.CONTROL_URL ?? '').replace(/\/+$/, '');
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');
const file = name => path.join(FIXTURES.files, name);

const control = async (route, body) => {
    const response = await fetch(`${CONTROL_URL}${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(response.status, 200, `control ${route}`);
    return response.json();
};

const waitFor = async (check, message, timeout = TIMEOUT) => {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
        last = await check();
        if (last) return last;
        await new Promise(resolve => setTimeout(resolve, 100));
    }
    throw new Error(`timed out: ${message} (last: ${JSON.stringify(last)})`);
};

const button = (scope, name) => scope.getByRole('button', { name, exact: true });
const statusIs = (page, text) => page.getByTestId('console-status').filter({ hasText: text }).waitFor();

const connect = async page => {
    await button(page, 'Connect to Cara').click();
    const dialog = page.getByRole('dialog', { name: 'Patient consent' });
    await button(dialog, 'The patient agrees: start').click();
    await statusIs(page, 'Connected to Cara. You can now give voice commands.');
    return waitFor(
        () => page.getByTestId('live-console').getAttribute('data-consultation'),
        'the console names its consultation',
    );
};

describe("the radiologist's studies", () => {
    let browser;
    let page;

    before(async () => {
        assert.ok(CONTROL_URL && FIXTURES.doctor, 'run through tests/e2e/test_web_imaging.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        await browser.context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
        await control('/reset', {});
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('waits for a consultation before taking files', async () => {
        await signInAs(page, FIXTURES.doctor, 'doctor', '/radiologist');
        const panel = page.getByTestId('study-upload');
        await panel.getByRole('heading', { name: 'Imaging studies' }).waitFor();
        await panel.getByText('Connect to start a consultation, then bring its studies in.').waitFor();
        assert.equal(await button(panel, 'Choose files').isDisabled(), true);
        assert.equal(await button(panel, 'Choose a folder').isDisabled(), true);
    });

    it('stores chosen files in the PACS and lists the study', async () => {
        const consultationId = await connect(page);
        assert.match(consultationId, /^[0-9a-f-]{36}$/);
        const panel = page.getByTestId('study-upload');
        await panel.getByTestId('studies-empty').waitFor();
        assert.equal(await button(panel, 'Choose files').isDisabled(), false);
        const chooser = page.waitForEvent('filechooser');
        await button(panel, 'Choose files').click();
        await (await chooser).setFiles([file('IMG0001.dcm'), file('IMG0002.dcm')]);
        await panel.getByTestId('study-stored').filter({ hasText: 'Images stored: 2' }).waitFor();
        const item = panel.locator(`[data-uid="${FIXTURES.chosenUid}"]`);
        await item.waitFor();
        const text = await item.textContent();
        assert.match(text, /Mensah Kofi/);
        assert.match(text, /CT/);
        assert.match(text, /Accession: ACC42/);
        assert.match(text, /Images: 2/);
        await assertAccessible(page, 'study upload');
        await screenshot(page, 'imaging-studies');
    });

    it('shows progress for a zip dropped on a slow link, then stores it', async () => {
        const panel = page.getByTestId('study-upload');
        const cdp = await browser.context.newCDPSession(page);
        await cdp.send('Network.enable');
        // 3G-like upload: the 100 kB zip takes a few seconds, so the progress bar is seen.
        await cdp.send('Network.emulateNetworkConditions', {
            offline: false,
            latency: 100,
            downloadThroughput: (750 * 1024) / 8,
            uploadThroughput: (250 * 1024) / 8,
        });
        const zip = readFileSync(file('study.zip')).toString('base64');
        await page.evaluate(async base64 => {
            const bytes = Uint8Array.from(atob(base64), c => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], 'study.zip', { type: 'application/zip' }));
            const zone = document.querySelector('[data-testid="study-drop"]');
            zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
            zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        }, zip);
        const progress = panel.getByTestId('study-progress');
        await progress.waitFor();
        assert.match(await progress.textContent(), /Uploading… \d+%/);
        await panel.getByTestId('study-stored').filter({ hasText: 'Images stored: 3' }).waitFor({ timeout: 30_000 });
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
        await panel.locator(`[data-uid="${FIXTURES.droppedUid}"]`).filter({ hasText: 'Owusu Ama' }).waitFor();
        assert.equal(await panel.getByTestId('study-list').locator('li').count(), 2);
    });

    it('names a file that is not DICOM and stores nothing of it', async () => {
        const panel = page.getByTestId('study-upload');
        const chooser = page.waitForEvent('filechooser');
        await button(panel, 'Choose files').click();
        await (await chooser).setFiles([file('notes.txt')]);
        const error = panel.getByTestId('study-error');
        await error.waitFor();
        assert.match(await error.textContent(), /Nothing was stored: notes\.txt is not a DICOM file/);
        assert.equal(await panel.getByTestId('study-list').locator('li').count(), 2);
    });

    it('sends a part again when the link drops, and resumes an upload the link stopped', async () => {
        const panel = page.getByTestId('study-upload');
        let cut = 5; // the first try and its two retries fail, then the resumed one, then the link is back
        const sent = [];
        await page.route('**/api/imaging/studies', route => {
            if (route.request().method() !== 'POST') return route.continue();
            sent.push(cut);
            if (cut > 1) {
                cut -= 1;
                return route.abort('internetdisconnected');
            }
            return route.continue();
        });
        try {
            const chooser = page.waitForEvent('filechooser');
            await button(panel, 'Choose files').click();
            await (await chooser).setFiles([file('resume-1.dcm'), file('resume-2.dcm')]);
            // Only an upload the link stopped offers to resume (the last test's message is gone).
            const resume = button(panel, 'Resume upload');
            await resume.waitFor({ timeout: 30_000 });
            await panel.getByTestId('study-error').waitFor();
            assert.equal(sent.length, 3, 'three tries before the upload stops');
            await resume.click();
            // The resumed part fails once more on the network, is sent again by itself, and is stored.
            await panel.getByTestId('study-stored').filter({ hasText: 'Images stored: 2' }).waitFor({ timeout: 30_000 });
            assert.equal(sent.length, 5);
            await panel.locator(`[data-uid="${FIXTURES.resumedUid}"]`).filter({ hasText: 'Asante Efua' }).waitFor();
        } finally {
            await page.unroute('**/api/imaging/studies');
        }
    });

    it("lets the hospital point Cara at its own PACS, tested before it is saved", async () => {
        const hospitalPage = (await openBrowser({})).page;
        try {
            await signInAs(hospitalPage, FIXTURES.hospital, 'hospital', '/security');
            const card = hospitalPage.getByTestId('pacs-settings');
            await card.getByRole('heading', { name: 'PACS (imaging)' }).waitFor();
            const notice = card.getByTestId('pacs-notice');
            const tryWith = async (address, password, expected) => {
                await card.getByLabel('DICOMweb address').fill(address);
                await card.getByLabel('PACS username').fill(FIXTURES.pacs.username);
                await card.getByLabel('PACS password').fill(password);
                await button(card, 'Test connection').click();
                await notice.filter({ hasText: expected }).waitFor();
            };
            await tryWith(FIXTURES.pacs.url, 'not-the-password', 'The PACS refused the username or password.');
            await card.getByText('refused Cara\'s username and password (401)').waitFor();
            await tryWith(FIXTURES.pacs.root, FIXTURES.pacs.password, 'This address does not answer as DICOMweb.');
            await tryWith(FIXTURES.pacs.url, FIXTURES.pacs.password, 'Connection works.');
            await button(card, 'Save PACS settings').click();
            await notice.filter({ hasText: 'Saved.' }).waitFor();
            await card.getByText('A password is saved; leave this empty to keep it.').waitFor();
            assert.equal(await card.getByLabel('PACS password').inputValue(), '', 'the password is never shown again');
            assert.ok(!(await hospitalPage.content()).includes(FIXTURES.pacs.password), 'the password is not in the page');
            await assertAccessible(hospitalPage, 'PACS settings');
            await screenshot(hospitalPage, 'imaging-pacs-settings');
        } finally {
            await hospitalPage.context().close();
        }
    });

    it('reads in French and Arabic, and fits a phone', async () => {
        for (const [locale, heading, choose] of [
            ['fr-FR', 'Examens d’imagerie', 'Choisir des fichiers'],
            ['ar', 'دراسات التصوير', 'اختر ملفات'],
        ]) {
            const other = await openBrowser({ locale, args: MEDIA_ARGS, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
            try {
                await signInAs(other.page, FIXTURES.doctor, 'doctor', '/radiologist');
                const panel = other.page.getByTestId('study-upload');
                await panel.getByRole('heading', { name: heading }).waitFor();
                await button(panel, choose).waitFor();
                const overflow = await other.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
                assert.ok(overflow <= 1, `no sideways scroll on a phone (${locale}: ${overflow}px)`);
                await screenshot(other.page, `imaging-studies-phone-${locale}`);
                assert.deepEqual(other.pageErrors, [], `uncaught errors in the page (${locale})`);
            } finally {
                await other.close();
            }
        }
    });
});
