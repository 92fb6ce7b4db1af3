// The consultation record in Chromium, end to end (issue 16): consent before
// anything starts, a consultation with the Gemini double, a report draft
// written by the worker from the stored transcript, the consultation page
// (edit, a save that lost a race and kept its text, sign), FHIR and PDF
// downloads, and the hospital reading the signed note. axe on every new
// screen, Arabic right to left, a phone-width page. Run by
// tests/e2e/test_web_consultations.py, which also sets CONTROL_URL (the
// double's control endpoints) and CHROMIUM_ARGS (fake microphone).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { apiPost, assertAccessible, BASE_URL, FIXTURES, openBrowser, screenshot, signInAs, TIMEOUT, url, waitForPath } from './lib.mjs';

const CONTROL_URL = (process.env.CONTROL_URL ?? '').replace(/\/+$/, '');
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');

const control = async (path, body) => {
    const response = await fetch(`${CONTROL_URL}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await response.json();
    assert.equal(response.status, 200, `control ${path}: ${JSON.stringify(payload)}`);
    return payload;
};
const serverSays = (message, index = 0) => control(`/sessions/${index}/send`, { message });

const waitFor = async (check, message, timeout = TIMEOUT) => {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
        last = await check();
        if (last) return last;
        await new Promise(resolve => setTimeout(resolve, 150));
    }
    throw new Error(`timed out: ${message} (last: ${JSON.stringify(last)})`);
};

const button = (scope, name) => scope.getByRole('button', { name, exact: true });
/** Waits for the page's finite animations (a dialog fading in) so axe measures the final colours. */
const settled = page =>
    page.evaluate(() =>
        Promise.all(
            document
                .getAnimations()
                .filter(animation => animation.effect?.getComputedTiming().iterations !== Infinity)
                .map(animation => animation.finished.catch(() => undefined)),
        ),
    );
const statusIs = (page, text) => page.getByTestId('console-status').filter({ hasText: text }).waitFor();

describe('the consultation record', () => {
    const doctor = FIXTURES.recordDoctor;
    const hospital = FIXTURES.recordHospital;
    let browser;
    let page;
    let consultationId;
    let doctorToken;
    const pageLog = [];

    before(async () => {
        assert.ok(CONTROL_URL && doctor && hospital, 'run through tests/e2e/test_web_consultations.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        page.on('console', message => {
            if (['error', 'warning'].includes(message.type())) pageLog.push(`${message.type()}: ${message.text()}`);
        });
        await browser.context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
    });
    after(async () => {
        if (pageLog.length) console.log(`page console:\n  ${pageLog.join('\n  ')}`);
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('asks for consent before anything starts; cancelling starts nothing', async () => {
        await control('/reset', {});
        const session = await signInAs(page, doctor, 'doctor', '/radiologist');
        doctorToken = session.token;
        await page.getByRole('heading', { level: 1, name: 'Radiology Assistant' }).waitFor();
        await button(page, 'Connect to Cara').click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        await dialog.waitFor();
        await settled(page);
        await assertAccessible(page, 'consent dialog');
        await screenshot(page, 'consultation-consent');
        await button(dialog, 'Cancel').click();
        await dialog.waitFor({ state: 'detached' });
        await statusIs(page, 'Click to connect to Cara');
        assert.deepEqual(await control('/sessions'), [], 'no Live session without consent');
    });

    it('consents with a patient reference, consults with the double, ends the consultation', async () => {
        await button(page, 'Connect to Cara').click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        await dialog.getByText('Add a patient reference (optional)').click();
        await dialog.getByLabel('Record number').fill('MRN-0042');
        await button(dialog, 'The patient agrees: start').click();
        await statusIs(page, 'Connected to Cara. You can now give voice commands.');
        consultationId = await waitFor(
            () => page.getByTestId('live-console').getAttribute('data-consultation'),
            'the console names its consultation',
        );
        assert.match(consultationId, /^[0-9a-f-]{36}$/);
        // A reload would rejoin: the tab keeps the consultation.
        const stored = await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)));
        assert.ok(stored.includes(consultationId), 'the consultation id is kept in the tab');

        await waitFor(async () => (await control('/sessions')).length, 'a Live session opened');
        await serverSays({
            serverContent: { inputTranscription: { text: 'Hey Cara, please review this chest X-ray; two weeks of cough and fever.' } },
        });
        await serverSays({ serverContent: { outputTranscription: { text: 'The lungs are clear; no pneumothorax.' } } });
        await serverSays({ serverContent: { turnComplete: true } });
        await serverSays({ serverContent: { inputTranscription: { text: 'Small nodule in the right upper lobe, 6 mm.' } } });
        await serverSays({ serverContent: { turnComplete: true } });
        await serverSays({ serverContent: { inputTranscription: { text: 'He smokes, twenty pack-years.' } } });
        await serverSays({ serverContent: { turnComplete: true } });
        const voice = page.getByTestId('voice-panel');
        await voice.locator('[data-speaker="assistant"]').filter({ hasText: 'The lungs are clear' }).waitFor();
        await voice.locator('[data-speaker="user"]').filter({ hasText: 'Small nodule' }).waitFor();
        await voice.locator('[data-speaker="user"]').filter({ hasText: 'twenty pack-years' }).waitFor();
        // A summary asked for during the visit is kept on the consultation (checked on its page).
        await button(page, 'Summary panel').click();
        const panel = page.getByTestId('summary-panel');
        await button(panel, 'Generate Summary').click();
        await panel.locator('[data-status="done"]').first().waitFor({ timeout: 40_000 });
        await button(page, 'Summary panel').click();
        await button(page, 'Disconnect from Cara').click();
        await statusIs(page, 'Click to connect to Cara');
    });

    it('lists the consultations: newest first, a page at a time, filters, accessible', async () => {
        // Twenty newer consultations (consented, never connected): the first page is full.
        for (let i = 0; i < 20; i += 1) {
            const { status, body } = await apiPost('/api/consultations', { console: 'cardiologist', consent: true }, doctorToken);
            assert.equal(status, 201, JSON.stringify(body));
        }
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Consultations' }).click();
        await waitForPath(page, '/consultations');
        await page.getByRole('heading', { level: 1, name: 'Consultations' }).waitFor();
        const rows = page.getByTestId('consultation-row');
        await waitFor(async () => (await rows.count()) === 20, 'a first page of 20');
        assert.match(await rows.first().textContent(), /Cardiology/, 'newest first');
        // Without a title of the doctor's own, each is named by patient, console and time.
        assert.ok(!(await page.getByTestId('consultations-list').textContent()).includes('Untitled'), 'no untitled row');
        assert.match(await rows.first().getByRole('link').textContent(), /^Cardiology consultation · /);
        await assertAccessible(page, 'consultations list');
        await screenshot(page, 'consultations-list');
        await page.getByTestId('consultations-more').click();
        await waitFor(async () => (await rows.count()) === 21, 'the next page appended');
        assert.match(await rows.last().textContent(), /Radiology/, 'the oldest last');
        assert.equal(await page.getByTestId('consultations-more').count(), 0, 'no page after the last');

        // Search by the patient reference, then a state that has none.
        await page.getByTestId('consultations-search').fill('MRN-0042');
        await waitFor(async () => (await rows.count()) === 1, 'one match');
        await waitFor(async () => /Lines\s*[1-9]/.test(await rows.first().textContent()), 'the stored lines are counted');
        await page.getByTestId('consultations-state').selectOption('signed');
        await page.getByTestId('consultations-empty').filter({ hasText: 'No consultation matches these filters.' }).waitFor();
        await page.getByTestId('consultations-state').selectOption('');
        await rows.first().getByRole('link').click();
        await waitForPath(page, `/consultations/${consultationId}`);
    });

    it('shows the transcript, generates a report draft on the worker and starts the note from it', async () => {
        const transcript = page.getByTestId('transcript');
        await transcript.locator('[data-speaker="user"]').filter({ hasText: 'please review this chest X-ray' }).waitFor();
        await transcript.locator('[data-speaker="assistant"]').filter({ hasText: 'The lungs are clear' }).waitFor();
        assert.match(await page.getByTestId('patient-reference').textContent(), /MRN-0042/);
        assert.match(await page.getByRole('heading', { level: 1 }).textContent(), /^Record MRN-0042 · Radiology consultation · /);

        // The note was written when the visit ended, in the console's default template, each
        // sentence citing its lines, with the ICD-10 codes the lines support (and no false code).
        const written = page.getByTestId('draft').filter({ hasText: 'Note draft: Radiology report: CT' });
        for (let tries = 0; tries < 20 && !(await written.count()); tries += 1) {
            await page.waitForTimeout(2_000);
            await page.reload();
            await page.getByTestId('consultation-page').waitFor();
        }
        await written.waitFor();
        await page.getByTestId('consultation-notice').filter({ hasText: 'Cara wrote this note from the visit.' }).waitFor();
        assert.ok((await written.getByTestId('evidence-sentence').count()) > 0, 'the written note cites its lines');
        const proposed = written.getByTestId('draft-codes');
        await proposed.locator('[data-code="R05"]').waitFor();
        await proposed.locator('[data-code="R50.9"]').waitFor();
        assert.equal(await proposed.locator('[data-code="Q99.999"]').count(), 0, 'a code outside ICD-10 is never shown');
        assert.match(await proposed.textContent(), /R05\s*Cough/);
        // What the clinician said that no sentence uses is listed (the double leaves the last line out).
        const omissions = written.getByTestId('draft-omissions');
        await omissions.locator('summary').click();
        assert.match(await omissions.textContent(), /Possibly left out: 1.*twenty pack-years/s);

        // The live summary is here, and starting the note from it on a radiology consultation
        // puts its text where the sectioned editor shows it, and says so.
        const live = page.getByTestId('draft').filter({ hasText: 'Summary' });
        await live.waitFor();
        await live.getByTestId('use-draft').click();
        await page.getByTestId('consultation-notice').filter({ hasText: 'The note now starts from the summary.' }).waitFor();
        const findings = page.getByTestId('note-editor').locator('textarea[data-section="findings"]');
        await waitFor(async () => (await findings.inputValue()).trim().length > 0, 'the summary in the findings');

        await page.getByTestId('generate-report').click();
        await page.getByTestId('generating').waitFor();
        await page.getByTestId('draft').filter({ hasText: 'Report draft' }).waitFor({ timeout: 40_000 });
        await page.getByTestId('consultation-notice').filter({ hasText: 'Report draft ready.' }).waitFor();
        // The worker built it from the stored lines: the double saw them.
        const asked = await control('/generate-requests');
        assert.ok(asked.some(request => request.text.includes('Small nodule')), JSON.stringify(asked));
        assert.ok(!asked.some(request => request.text.includes('MRN-0042')), 'the patient reference never reaches the model');
        await page.getByTestId('ai-label').filter({ hasText: 'Draft — AI-assisted' }).waitFor();
        await assertAccessible(page, 'consultation page with a draft');
        await screenshot(page, 'consultation-draft');
    });

    it('saves with its version; a save that lost a race keeps its text; signs', async () => {
        const editor = page.getByTestId('note-editor');
        // A radiology draft is edited by section; a plain draft as one text.
        const structured = (await editor.getByLabel('Impression').count()) > 0;
        const field = structured ? editor.getByLabel('Impression') : editor.getByLabel('Note');
        // The doctor accepts the two codes the note proposed; they are kept with the note.
        const codes = editor.getByTestId('note-codes');
        await codes.locator('[data-code="R05"] input').check();
        await codes.locator('[data-code="R50.9"] input').check();
        await field.fill('Small nodule in the right upper lobe. Reviewed by the radiologist.');
        await page.getByTestId('note-save').click();
        await page.getByTestId('note-message').filter({ hasText: 'Note saved (version 1).' }).waitFor();

        // Another window saves version 2 while this one still edits version 1.
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${doctorToken}` };
        const current = await (await fetch(url(`/api/consultations/${consultationId}`), { headers })).json();
        const other = await fetch(url(`/api/consultations/${consultationId}/note`), {
            method: 'PUT',
            headers,
            body: JSON.stringify(
                current.note.sections
                    ? { sections: { ...current.note.sections, findings: 'Text saved in another window.' }, version: 1 }
                    : { text: 'Text saved in another window.', version: 1 },
            ),
        });
        assert.equal(other.status, 200, await other.text());
        await field.fill('No acute findings. Lung-RADS 2, routine follow-up.');
        await page.getByTestId('note-save').click();
        await page.getByTestId('note-conflict').waitFor();
        assert.equal(await field.inputValue(), 'No acute findings. Lung-RADS 2, routine follow-up.', 'nothing lost');
        assert.match(await page.getByTestId('note-conflict').textContent(), /Text saved in another window\./);
        await button(page, 'Save my text over it').click();
        await page.getByTestId('note-message').filter({ hasText: 'Note saved (version 3).' }).waitFor();

        await page.getByTestId('note-sign').click();
        const confirm = page.getByRole('dialog', { name: 'Sign this note?' });
        await confirm.waitFor();
        // Before signing, the doctor is told what the draft's evidence does not cover.
        assert.match(await confirm.getByTestId('sign-safety').textContent(), /Transcript lines no sentence uses: 1/);
        await settled(page);
        await assertAccessible(page, 'sign confirmation');
        await button(confirm, 'Sign the note').click();
        const signed = page.getByTestId('signed-note');
        await signed.waitFor();
        assert.match(await signed.textContent(), /No acute findings\. Lung-RADS 2, routine follow-up\./);
        assert.match(await signed.getByTestId('signature').textContent(), new RegExp(`Signed by ${doctor.name}`));
        assert.match(await signed.getByTestId('signature-hash').first().textContent(), /^[0-9a-f]{64}$/);
        assert.equal(await page.getByTestId('note-editor').count(), 0, 'a signed note is read-only');
        const signedCodes = signed.getByTestId('signed-codes');
        await signedCodes.locator('[data-code="R05"]').waitFor();
        await signedCodes.locator('[data-code="R50.9"]').waitFor();
        await page.getByTestId('consultation-page').and(page.locator('[data-state="signed"]')).waitFor();
        await assertAccessible(page, 'signed note');
        await screenshot(page, 'consultation-signed');
    });

    it('downloads the signed note as FHIR and as PDF', async () => {
        const [fhir] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-fhir').click()]);
        const bundle = JSON.parse(readFileSync(await fhir.path(), 'utf8'));
        assert.ok(['Bundle', 'DocumentReference'].includes(bundle.resourceType), bundle.resourceType);
        assert.match(JSON.stringify(bundle), /18748-4|11488-4/, 'a LOINC document type');
        if (bundle.resourceType === 'Bundle') {
            const coded = bundle.entry
                .filter(entry => entry.resource.resourceType === 'Condition')
                .map(entry => entry.resource.code.coding[0].code)
                .sort();
            assert.deepEqual(coded, ['R05', 'R50.9'], 'the accepted codes are Conditions');
        }
        const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-pdf').click()]);
        assert.equal(readFileSync(await pdf.path()).subarray(0, 5).toString('latin1'), '%PDF-');
    });

    it('copies the signed note as text and prints the note alone', async () => {
        await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
        await page.getByTestId('copy-note').click();
        await page.getByTestId('consultation-notice').filter({ hasText: 'The signed note is copied.' }).waitFor();
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        assert.match(copied, /No acute findings\. Lung-RADS 2, routine follow-up\./);
        assert.match(copied, /R05 Cough/);
        await page.emulateMedia({ media: 'print' });
        try {
            assert.ok(await page.getByTestId('signed-note').isVisible(), 'the note prints');
            assert.ok(!(await page.getByTestId('transcript').isVisible()), 'the transcript does not print');
            assert.ok(!(await page.getByTestId('download-pdf').isVisible()), 'the buttons do not print');
        } finally {
            await page.emulateMedia({ media: 'screen' });
        }
    });

    it('adds an addendum, never an overwrite', async () => {
        await page.getByTestId('addendum-text').fill('Addendum: comparison with the 2025 film shows no change.');
        await page.getByTestId('addendum-add').click();
        await page.getByTestId('note-entry').filter({ hasText: 'comparison with the 2025 film' }).waitFor();
        assert.equal(await page.getByTestId('note-entry').count(), 2);
        assert.match(await page.getByTestId('note-entry').first().textContent(), /No acute findings/);
    });

    it('reads right to left in Arabic and fits a phone', async () => {
        await page.evaluate(() => localStorage.setItem('locale', 'ar'));
        await page.setViewportSize({ width: 390, height: 844 });
        await page.reload();
        await page.getByTestId('consultation-page').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await page.getByText('الملاحظة الموقَّعة').first().waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
        await assertAccessible(page, 'consultation page, Arabic, phone');
        await screenshot(page, 'consultation-ar-phone');
        await page.evaluate(() => localStorage.setItem('locale', 'en'));
        await page.setViewportSize({ width: 1280, height: 860 });
    });

    it('shows the signed note to the doctor’s hospital, read-only', async () => {
        await signInAs(page, hospital, 'hospital', '/manage');
        await page.getByRole('link', { name: `Signed notes of ${doctor.name}` }).click();
        await page.getByRole('heading', { level: 1, name: `Signed notes of ${doctor.name}` }).waitFor();
        const row = page.getByTestId('signed-note-row').first();
        await row.locator('summary').click();
        await row.getByText(/No acute findings\. Lung-RADS 2, routine follow-up\./).first().waitFor();
        assert.equal(await row.getByTestId('addendum-text').count(), 0, 'the hospital cannot add to it');
        const [fhir] = await Promise.all([page.waitForEvent('download'), row.getByTestId('signed-download-fhir').click()]);
        const bundle = JSON.parse(readFileSync(await fhir.path(), 'utf8'));
        assert.equal(bundle.resourceType, 'Bundle');
        assert.match(JSON.stringify(bundle), /Lung-RADS 2/, 'the hospital downloads the signed note');
        const [pdf] = await Promise.all([page.waitForEvent('download'), row.getByTestId('signed-download-pdf').click()]);
        assert.equal(readFileSync(await pdf.path()).subarray(0, 5).toString('latin1'), '%PDF-');
        await assertAccessible(page, 'hospital view of signed notes');
        await screenshot(page, 'hospital-signed-notes');
        // The hospital never reads the doctor's consultation itself.
        const response = await fetch(url(`/api/consultations/${consultationId}`), {
            headers: { authorization: `Bearer ${(await apiPost('/api/auth/login', { email: hospital.email, password: hospital.password, role: 'hospital' })).body.token}` },
        });
        assert.ok([403, 404].includes(response.status), `hospital read its doctor's consultation: ${response.status}`);

        // Every doctor's signed notes, with how much drafts changed before signing, per template.
        await page.goto(url('/signed-notes'));
        const changes = page.getByTestId('draft-changes');
        const changeRow = changes.getByTestId('draft-change-row').first();
        await changeRow.waitFor();
        assert.match(await changeRow.textContent(), /^Report draft\s*1\s*\d+%\s*\d+%$/);
        await assertAccessible(page, 'hospital signed notes with draft changes');
    });

    it("starts without the consent click where the hospital made consent not mandatory", async () => {
        const login = await apiPost('/api/auth/login', { email: hospital.email, password: hospital.password, role: 'hospital' });
        const setMandatory = async value => {
            const response = await fetch(url('/api/consultations/settings'), {
                method: 'PUT',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${login.body.token}` },
                body: JSON.stringify({ consentMandatory: value }),
            });
            assert.equal(response.status, 200, await response.text());
        };
        await setMandatory(false);
        try {
            await control('/reset', {});
            await signInAs(page, doctor, 'doctor', '/radiologist');
            await page.getByRole('heading', { level: 1, name: 'Radiology Assistant' }).waitFor();
            await page.waitForLoadState('networkidle');
            await button(page, 'Connect to Cara').click();
            await statusIs(page, 'Connected to Cara. You can now give voice commands.');
            assert.equal(await page.getByRole('dialog', { name: 'Patient consent' }).count(), 0);
            await button(page, 'Disconnect from Cara').click();
            await statusIs(page, 'Click to connect to Cara');
        } finally {
            await setMandatory(true);
        }
    });
});
