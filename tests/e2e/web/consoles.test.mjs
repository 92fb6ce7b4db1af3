// The live assistant consoles and the radiotherapy chat in Chromium with fake
// media devices, against the real API, relay and worker, with the project's
// Gemini double as the AI service. Run by tests/e2e/test_web_consoles.py,
// which also sets:
//
//   PLAIN_BASE_URL  an API server without a provider key ('not configured')
//   CONTROL_URL     the double's control endpoints (script it, read what it received)
//   CHROMIUM_ARGS   JSON list of extra switches (fake microphone and camera)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import {
    assertAccessible,
    BASE_URL,
    browserLogin,
    FIXTURES,
    followSignupLink,
    openBrowser,
    screenshot,
    signInAs,
    TIMEOUT,
    uniqueEmail,
    url,
} from './lib.mjs';

const PLAIN_BASE_URL = (process.env.PLAIN_BASE_URL ?? '').replace(/\/+$/, '');
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
const sessions = () => control('/sessions');
/** Sends a server message (Gemini's wire JSON) on the double's `index`-th Live connection. */
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

const consoleData = (page, name) =>
    page.evaluate(key => document.querySelector('[data-testid="live-console"]')?.dataset[key] ?? null, name);
const waitForData = (page, name, predicate, message, timeout) =>
    waitFor(async () => {
        const value = await consoleData(page, name);
        return predicate(value) ? value || true : false;
    }, message, timeout);

/** The connect button's three labels in each language (the consoles' texts). */
const CONNECT_LABELS = ['en', 'fr', 'es', 'ar'].flatMap(language => {
    const texts = JSON.parse(readFileSync(new URL(`../../../web/src/locales/${language}/consoles.json`, import.meta.url), 'utf8'));
    return ['Connect to Cara', 'Connecting...', 'Disconnect from Cara'].map(key => ({ language, text: texts[key] }));
});

/**
 * Words of the connect button's visible label that break across lines or stick out of the
 * button: the label as shown, then each language's labels in a copy of the button beside it
 * (same styles, same rail).
 */
const connectLabelProblems = (page, labels) =>
    page.getByTestId('connect-button').evaluate((button, labels) => {
        const problems = [];
        const check = (target, name) => {
            const text = target.querySelector('.tray-connect-text');
            const node = text.firstChild;
            const outer = target.getBoundingClientRect();
            for (const match of node.textContent.matchAll(/\S+/g)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + match[0].length);
                const rects = [...range.getClientRects()].filter(rect => rect.width > 0);
                if (new Set(rects.map(rect => Math.round(rect.top))).size > 1)
                    problems.push(`${name}: '${match[0]}' breaks across lines`);
                if (rects.some(rect => rect.left < outer.left - 0.5 || rect.right > outer.right + 0.5))
                    problems.push(`${name}: '${match[0]}' sticks out of the button`);
            }
        };
        check(button, `shown '${button.textContent.trim()}'`);
        for (const { language, text } of labels) {
            const copy = button.cloneNode(true);
            copy.removeAttribute('data-testid');
            copy.setAttribute('lang', language);
            copy.setAttribute('dir', language === 'ar' ? 'rtl' : 'ltr');
            copy.querySelector('.tray-connect-text').textContent = text;
            button.after(copy);
            check(copy, `${language} '${text}'`);
            copy.remove();
        }
        return problems;
    }, labels);

const statusIs = (page, text) => page.getByTestId('console-status').filter({ hasText: text }).waitFor();
const button = (page, name) => page.getByRole('button', { name, exact: true });
/** Connect, confirming the patient's consent in the dialog that comes first (issue 16). */
const connectWithConsent = async page => {
    await button(page, 'Connect to Cara').click();
    const dialog = page.getByRole('dialog', { name: 'Patient consent' });
    await button(dialog, 'The patient agrees: start').click();
    await dialog.waitFor({ state: 'detached' });
};

describe('live assistant consoles', () => {
    let browser;
    let page;
    const pageLog = [];
    const requested = []; // paths the page fetched (the sound effects)

    before(async () => {
        assert.ok(CONTROL_URL && PLAIN_BASE_URL, 'run through tests/e2e/test_web_consoles.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        // The page's warnings and errors, printed at the end to explain a failure.
        page.on('console', message => {
            if (['error', 'warning'].includes(message.type())) pageLog.push(`${message.type()}: ${message.text()}`);
        });
        page.on('request', request => requested.push(new URL(request.url()).pathname));
        // Grant the fake devices to the app's origin (the switch answers the prompts too).
        await browser.context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
    });
    after(async () => {
        if (pageLog.length) console.log(`page console:\n  ${pageLog.join('\n  ')}`);
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('shows the console before connecting: status, tooltips, demo badge, accessible', async () => {
        await control('/reset', {});
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await page.getByRole('heading', { level: 1, name: 'Radiology Assistant' }).waitFor();
        await statusIs(page, 'Click to connect to Cara');
        const connect = button(page, 'Connect to Cara');
        assert.equal(await connect.getAttribute('title'), 'Connect to Cara');
        // The server runs with the demo flag: the badge says replies are not from a model.
        await page.getByTestId('demo-badge').filter({ hasText: 'Demo AI — not a medical model' }).waitFor();
        // The console's stage is dark (spec §2); the page itself follows the app's theme (light by default).
        const stage = await page.locator('.console-stage').evaluate(el => getComputedStyle(el).backgroundColor);
        assert.equal(stage, 'rgb(13, 20, 34)');
        const pageBackground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        assert.equal(pageBackground, 'rgb(244, 247, 250)');
        await page.getByText('No transcriptions yet. Click the microphone to start speaking.').waitFor();
        for (const sound of ['connect', 'disconnect', 'error']) {
            const response = await fetch(url(`/sounds/${sound}.wav`));
            assert.equal(response.status, 200, sound);
            assert.match(response.headers.get('content-type') ?? '', /^audio\//, sound);
        }
        for (const name of ['Mute microphone', 'Transcription panel', 'Summary panel', 'Camera', 'Screen sharing']) {
            assert.equal(await button(page, name).getAttribute('aria-pressed'), 'false', name);
        }
        await assertAccessible(page, 'radiology console, disconnected');
    });

    it('connects: microphone audio reaches the assistant, its voice plays, transcripts and wake state show', async () => {
        // Every status text the line shows, in order.
        await page.evaluate(() => {
            const status = document.querySelector('[data-testid="console-status"]');
            window.statusTexts = [status.textContent];
            new MutationObserver(() => window.statusTexts.push(status.textContent)).observe(status, {
                childList: true,
                characterData: true,
                subtree: true,
            });
        });
        await connectWithConsent(page);
        await statusIs(page, 'Connected to Cara. You can now give voice commands.');
        assert.deepEqual(await page.evaluate(() => window.statusTexts), [
            'Click to connect to Cara',
            'Attempting to connect to Cara...',
            'Connected to Cara. You can now give voice commands.',
        ]);
        await waitFor(() => requested.includes('/sounds/connect.wav'), 'the connect sound');
        assert.equal(await button(page, 'Disconnect from Cara').getAttribute('title'), 'Disconnect from Cara');
        // On a desk the label sits under the icon in the tray's rail: lines break between words
        // only ('Disconnect / from Cara'), never inside one, in any language.
        assert.deepEqual(await connectLabelProblems(page, CONNECT_LABELS), []);
        // Specialty consoles start asleep until 'Hey Cara'.
        await page.getByTestId('wake-status').filter({ hasText: "Cara is asleep. Say 'Hey Cara' to wake her." }).waitFor();
        const [session] = await waitFor(async () => (await sessions()).length && sessions(), 'a Live session opened');
        assert.equal(session.voice, 'Zephyr', 'the radiology voice');

        // Chromium has WebCodecs: the socket carries Opus both ways in binary frames.
        assert.equal(await consoleData(page, 'audio'), 'opus');
        // The fake microphone, captured by the AudioWorklet, arrives upstream (about 8 chunks a second).
        await waitForData(page, 'audioChunks', v => Number(v) >= 8, 'the page sent 8 audio chunks');
        await waitFor(async () => (await sessions())[0].audioChunks >= 8, 'the double received 8 audio chunks');

        // The service hears the wake phrase (input transcription): Cara wakes up.
        await serverSays({ serverContent: { inputTranscription: { text: 'Hey Cara, please review this chest X-ray.' } } });
        await page.getByTestId('wake-status').filter({ hasText: 'Cara is listening.' }).waitFor();

        // Its reply: 24 kHz audio, scheduled for playback.
        await control('/sessions/0/audio', { seconds: 0.6 });
        await waitForData(page, 'playbackBuffers', v => Number(v) >= 3, 'three reply buffers scheduled');
        await serverSays({ serverContent: { outputTranscription: { text: 'The lungs are clear; no pneumothorax.' } } });
        await serverSays({ serverContent: { turnComplete: true } });

        const voice = page.getByTestId('voice-panel');
        await voice.locator('[data-speaker="user"]').filter({ hasText: 'please review this chest X-ray' }).waitFor();
        await voice.locator('[data-speaker="assistant"]').filter({ hasText: 'The lungs are clear' }).waitFor();
        await screenshot(page, 'console-radiologist-connected');
    });

    it('mutes and unmutes the microphone', async () => {
        await button(page, 'Mute microphone').click();
        assert.equal(await button(page, 'Mute microphone').getAttribute('aria-pressed'), 'true');
        assert.equal(await button(page, 'Mute microphone').getAttribute('title'), 'Unmute microphone');
        await new Promise(resolve => setTimeout(resolve, 400)); // chunks already in flight
        const muted = Number(await consoleData(page, 'audioChunks'));
        await new Promise(resolve => setTimeout(resolve, 1200));
        assert.equal(Number(await consoleData(page, 'audioChunks')), muted, 'no audio is sent while muted');
        await button(page, 'Mute microphone').click();
        await waitForData(page, 'audioChunks', v => Number(v) >= muted + 4, 'audio flows again after unmuting');
    });

    it('stops the assistant voice at once on interruption (barge-in)', async () => {
        await control('/sessions/0/audio', { seconds: 3 });
        await waitForData(page, 'playing', v => v === 'true', 'the reply is playing');
        await serverSays({ serverContent: { interrupted: true } });
        await waitForData(page, 'playing', v => v === 'false', 'playback stopped', 1000);
    });

    it('shows the transcription panel with times and speakers; it closes 5 s after the last mouse movement', async () => {
        const toggle = button(page, 'Transcription panel');
        await toggle.click();
        const panel = page.getByTestId('transcription-panel');
        await panel.waitFor();
        assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
        const lines = panel.locator('li[data-final="true"]');
        await waitFor(async () => (await lines.count()) >= 2, 'two finished lines');
        const first = lines.first();
        assert.match(await first.locator('time').textContent(), /\d{1,2}:\d{2}:\d{2}/);
        assert.equal(await first.locator('.transcript-speaker').textContent(), 'You');
        assert.match(await lines.nth(1).textContent(), /Cara.*The lungs are clear/);
        await screenshot(page, 'console-transcription-panel');

        // Mouse movement over the panel restarts the 5 s countdown...
        await new Promise(resolve => setTimeout(resolve, 3000));
        const box = await panel.boundingBox();
        await page.mouse.move(box.x + box.width / 2, box.y + 20, { steps: 3 });
        await new Promise(resolve => setTimeout(resolve, 3000));
        assert.ok(await panel.isVisible(), 'still open 6 s after opening: the mouse moved over it');
        // ...and without it the panel closes.
        await page.mouse.move(5, 5);
        await panel.waitFor({ state: 'hidden', timeout: 7000 });
        assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    });

    it('generates a summary and a report draft through the worker, and reports a timeout', async () => {
        await button(page, 'Summary panel').click();
        const panel = page.getByTestId('summary-panel');
        await panel.waitFor();
        await panel.getByText('No summary generated yet.').waitFor();
        await button(panel, 'Generate Summary').click();
        await page.getByTestId('console-toast').filter({ hasText: 'Summary request sent.' }).waitFor();
        const summary = panel.getByTestId('summary-result');
        await summary.and(page.locator('[data-status="done"]')).waitFor({ timeout: 15_000 });
        assert.match(await summary.textContent(), /Draft — AI-assisted.*\[Gemini double\]/s);
        await button(panel, 'Generate New Summary').waitFor();
        let asked = await control('/generate-requests');
        assert.ok(asked.some(r => r.text.includes('chest X-ray')), 'the transcript went to the model');

        await panel.getByLabel('Focus topic (optional)').fill('pleural effusion');
        await button(panel, 'Generate Report Draft').click();
        await page.getByTestId('console-toast').filter({ hasText: 'Report draft request sent.' }).waitFor();
        const report = panel.getByTestId('report-result');
        await report.and(page.locator('[data-status="done"]')).waitFor({ timeout: 15_000 });
        asked = await control('/generate-requests');
        assert.ok(asked.some(r => r.text.includes('pleural effusion')), 'the focus topic went to the model');
        await screenshot(page, 'console-summary-panel');

        // The model takes longer than the server waits (6 s in this run): spec §8's message.
        await control('/generate-delay', { seconds: 9 });
        await button(panel, 'Generate New Summary').click();
        await panel.getByText('Generating summary...', { exact: true }).first().waitFor();
        await summary.and(page.locator('[data-status="error"]')).waitFor({ timeout: 15_000 });
        assert.equal(
            (await summary.textContent()).trim(),
            'Summary generation timed out. Please try again.',
        );
        await page.getByTestId('console-toast').filter({ hasText: 'Failed to send summary request.' }).waitFor();
        await control('/generate-delay', { seconds: 0 });

        // The model fails: the server's message, prefixed as spec §8 says.
        await control('/generate-error', { status: 500, code: 'INTERNAL', message: 'Internal error encountered.' });
        await button(panel, 'Generate Summary').click(); // the failed request cleared the old summary
        await summary.and(page.locator('[data-status="error"]')).waitFor({ timeout: 15_000 });
        assert.match((await summary.textContent()).trim(), /^Error: .*Internal error encountered\.$/);
        await assertAccessible(page, 'radiology console, connected, summary panel open');
    });

    it('sends camera frames and typed questions, then disconnects', async () => {
        const camera = button(page, 'Camera');
        await camera.click();
        await page.getByTestId('console-video').waitFor();
        assert.equal(await camera.getAttribute('aria-pressed'), 'true');
        await waitForData(page, 'videoFrames', v => Number(v) >= 1, 'a JPEG frame sent', 8000);
        await waitFor(async () => (await sessions())[0].videoFrames >= 1, 'the double received a video frame');
        await camera.click();
        await page.getByTestId('console-video').waitFor({ state: 'hidden' });

        await page.getByPlaceholder('Type a question for Cara').fill('Is the heart size normal?');
        await button(page, 'Send question').click();
        await waitFor(async () => (await sessions())[0].texts.includes('Is the heart size normal?'), 'the typed question');
        await page.getByTestId('voice-panel').locator('[data-speaker="user"]').filter({ hasText: 'heart size' }).waitFor();

        await button(page, 'Disconnect from Cara').click();
        await statusIs(page, 'Click to connect to Cara');
        await waitFor(() => requested.includes('/sounds/disconnect.wav'), 'the disconnect sound');
        await waitFor(async () => (await sessions())[0].closed, 'the upstream connection closed');
    });

    it("shows the service's refusal as 'Connection failed: {message}'", async () => {
        await control('/reset', {});
        const reason = 'models/gemini-live-test is not found for API version v1beta.';
        await control('/refuse-next-setup', { code: 1008, reason });
        await connectWithConsent(page);
        await statusIs(page, `Connection failed: ${reason}`);
        await button(page, 'Connect to Cara').waitFor();
        await waitFor(() => requested.includes('/sounds/error.wav'), 'the failure sound');
        // A new consultation starts without the previous one's summary (spec §4).
        await page.getByTestId('summary-panel').getByText('No summary generated yet.').waitFor();
        await screenshot(page, 'console-connection-failed');
    });

    it('opens the generic console from the doctor dashboard: always awake, summary and report draft', async () => {
        await page.goto(url('/doctor-dashboard'));
        await page.getByTestId('quick-action-assistant').click();
        await page.waitForURL(/\/assistant$/);
        await page.getByRole('heading', { level: 1, name: 'Clinical Assistant' }).waitFor();
        await statusIs(page, 'Click to connect to Cara');
        await button(page, 'Summary panel').click();
        await page.getByTestId('summary-panel').getByLabel('Focus topic (optional)').waitFor();
        await button(page, 'Summary panel').click();
    });

    it('explains, and stops the camera, when the plan leaves out camera and screen sharing', async () => {
        await signInAs(page, FIXTURES.basic, 'doctor', '/assistant');
        await page.getByRole('heading', { level: 1, name: 'Clinical Assistant' }).waitFor();
        await connectWithConsent(page);
        await statusIs(page, 'Connected to Cara. You can now give voice commands.');
        const camera = button(page, 'Camera');
        await camera.click();
        const notice = page.getByTestId('live-notice');
        await notice.filter({ hasText: 'Camera and screen sharing are not part of your plan' }).waitFor({ timeout: 15_000 });
        await waitFor(async () => (await camera.getAttribute('aria-pressed')) === 'false', 'the camera stopped');
        await page.getByRole('link', { name: 'View plans' }).waitFor();
        await statusIs(page, 'Connected to Cara. You can now give voice commands.'); // the consultation goes on
        await assertAccessible(page, 'console, camera not in the plan');
        await button(page, 'Disconnect from Cara').click();
        await statusIs(page, 'Click to connect to Cara');
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
    });

    it('reads right to left in Arabic', async () => {
        await page.evaluate(() => localStorage.setItem('locale', 'ar'));
        await page.goto(url('/radiologist'));
        await page.getByTestId('console-status').filter({ hasText: 'انقر للاتصال بـ Cara' }).waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await page.getByRole('heading', { level: 1, name: 'مساعد الأشعة' }).waitFor();
        await screenshot(page, 'console-radiologist-ar');
        await page.evaluate(() => localStorage.setItem('locale', 'en'));
    });

    it('says clearly when the AI service is not configured', async () => {
        await page.goto(`${PLAIN_BASE_URL}/privacy-policy`);
        const login = await browserLogin(page, FIXTURES.radiologist, 'doctor');
        assert.equal(login.status, 200);
        await page.goto(`${PLAIN_BASE_URL}/radiologist`);
        await page
            .getByTestId('not-configured')
            .filter({ hasText: 'The AI service is not configured. Please contact your administrator.' })
            .waitFor();
        assert.ok(await button(page, 'Connect to Cara').isDisabled(), 'nothing to connect to');
        assert.equal(await page.getByTestId('demo-badge').count(), 0);
        await screenshot(page, 'console-not-configured');
        await assertAccessible(page, 'console, AI not configured');
    });
});

/** The consoles' and the consent dialog's texts in `language`. */
const textsOf = (language, namespace) =>
    JSON.parse(readFileSync(new URL(`../../../web/src/locales/${language}/${namespace}.json`, import.meta.url), 'utf8'));

/**
 * Run in the page: the console's controls that are covered where they are scrolled into view
 * (from the top of the page, as a doctor scrolling down or tabbing forward reaches them):
 * document.elementFromPoint at each control's centre must be the control or inside it.
 */
const coveredControls = () => {
    const describe = el =>
        el
            ? `${el.tagName.toLowerCase()}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}` +
              `[${(el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.textContent || '').trim().slice(0, 30)}]`
            : 'nothing';
    const controls = [...document.querySelectorAll('main button, main input, main select, main textarea')].filter(
        el => el.checkVisibility() && el.getBoundingClientRect().width >= 4,
    );
    const problems = [];
    for (const el of controls) {
        document.scrollingElement.scrollTop = 0;
        el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
        const box = el.getBoundingClientRect();
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (!hit || !(hit === el || el.contains(hit))) problems.push(`${describe(el)} is covered by ${describe(hit)}`);
    }
    document.scrollingElement.scrollTop = 0;
    return problems;
};

/** Run in the page: where `selector` is, and what is at its centre, against the viewport and the navbar. */
const placeOf = selector => {
    const el = document.querySelector(selector);
    const box = el.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return {
        top: box.top,
        bottom: box.bottom,
        navbarBottom: document.querySelector('.navbar')?.getBoundingClientRect().bottom ?? 0,
        viewportHeight: window.innerHeight,
        scrollY: window.scrollY,
        hit: Boolean(hit && (hit === el || el.contains(hit))),
        by: hit ? `${hit.tagName.toLowerCase()}.${[...hit.classList].join('.')}` : 'nothing',
    };
};

describe('live consoles on a phone (390×844, a touch screen)', () => {
    let browser;
    let page;
    const doctor = {
        email: uniqueEmail('phone-radiotherapist'),
        password: 'phone-console-secret',
    };

    before(async () => {
        browser = await openBrowser({
            args: MEDIA_ARGS,
            viewport: { width: 390, height: 844 },
            isMobile: true,
            hasTouch: true,
        });
        page = browser.page;
        await browser.context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
        await control('/reset', {});
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    const field = label => page.getByLabel(label, { exact: true });
    const connectIn = async language => {
        await page.getByTestId('connect-button').tap();
        const dialog = page.getByRole('dialog', { name: textsOf(language, 'consultations')['Patient consent'] });
        await button(dialog, textsOf(language, 'consultations')['The patient agrees: start']).tap();
        await dialog.waitFor({ state: 'detached' });
        await page.locator('[data-testid="live-console"][data-state="connected"]').waitFor();
    };
    const disconnect = async () => {
        await page.getByTestId('connect-button').tap();
        await page.locator('[data-testid="live-console"][data-state="disconnected"]').waitFor();
    };

    it('lands a new doctor on their console at its top, with Connect on screen and uncovered by the toast', async () => {
        await page.goto(url('/doctor-register'));
        await page.getByRole('heading', { level: 1, name: 'Doctor Registration' }).waitFor();
        await field('Full Name').fill('Dr Ama Mensah');
        await field('Email').fill(doctor.email);
        await field('Password').fill(doctor.password);
        await field('Confirm Password').fill(doctor.password);
        await field('Phone Number').fill('0241234567');
        await field('Specialty').selectOption('Radiotherapist');
        await field('License Number').fill(`GMC-${Date.now()}`);
        await field('Years of Experience').fill('7');
        await field('Country').selectOption('Ghana');
        await field('State/Province').fill('Greater Accra');
        await page.getByLabel(/I have read and accept the Privacy Policy/).check();
        await button(page, 'Register').tap(); // the form is scrolled down to its button
        // The account is made by the mailed link; its page opens at its top too.
        await page.getByTestId('signup-link-sent').waitFor();
        await followSignupLink(page, doctor.email);
        await page.waitForURL(/\/radiotherapist$/);
        await page.getByRole('heading', { level: 1, name: 'Radiotherapy Assistant' }).waitFor();
        await page.getByTestId('toast').filter({ hasText: 'Registration successful!' }).waitFor();
        await statusIs(page, 'Click to connect to Cara');
        const heading = await page.evaluate(placeOf, 'main h1');
        assert.equal(heading.scrollY, 0, 'the console opens at its top');
        assert.ok(heading.top >= heading.navbarBottom, `the heading is below the navbar (${heading.top} < ${heading.navbarBottom})`);
        const connect = await page.evaluate(placeOf, '[data-testid="connect-button"]');
        assert.ok(connect.bottom <= connect.viewportHeight, `Connect is on screen (${connect.bottom} > ${connect.viewportHeight})`);
        assert.ok(connect.hit, `Connect is covered by ${connect.by}`);
        await screenshot(page, 'console-phone-after-registration');
    });

    it('reaches every control, disconnected and connected, in English and Arabic', async () => {
        for (const language of ['en', 'ar']) {
            await page.evaluate(language => localStorage.setItem('locale', language), language);
            await page.goto(url('/radiotherapist'));
            await page.getByTestId('console-status').filter({ hasText: textsOf(language, 'consoles')['Click to connect to Cara'] }).waitFor();
            assert.deepEqual(await page.evaluate(coveredControls), [], `${language}, disconnected`);
            await connectIn(language);
            assert.deepEqual(await page.evaluate(coveredControls), [], `${language}, connected`);
            await screenshot(page, `console-phone-connected-${language}`);
            await disconnect();
        }
        await page.evaluate(() => localStorage.setItem('locale', 'en'));
    });

    it('opens the Transcription panel on screen at a tap, and keeps it open while the doctor reads it', async () => {
        await page.goto(url('/radiotherapist'));
        await statusIs(page, 'Click to connect to Cara');
        // A touch screen, no mouse: the spec's mouse-driven close does not apply.
        assert.equal(await page.evaluate(() => matchMedia('(hover: hover) and (pointer: fine)').matches), false);
        await connectIn('en');
        const index = (await sessions()).length - 1;
        await serverSays({ serverContent: { inputTranscription: { text: 'Hey Cara, check the spinal cord dose.' } } }, index);
        await serverSays({ serverContent: { turnComplete: true } }, index);
        await button(page, 'Transcription panel').tap();
        const panel = page.getByTestId('transcription-panel');
        await panel.waitFor();
        // Opening scrolls the panel into view; on a busy machine that may take a frame or two.
        let shown = await page.evaluate(placeOf, '[data-testid="transcription-panel"] h2');
        for (let tries = 0; tries < 30 && !(shown.top >= shown.navbarBottom && shown.bottom <= shown.viewportHeight); tries += 1) {
            await page.waitForTimeout(100);
            shown = await page.evaluate(placeOf, '[data-testid="transcription-panel"] h2');
        }
        assert.ok(
            shown.top >= shown.navbarBottom && shown.bottom <= shown.viewportHeight,
            `the panel's title is on screen (${shown.top}..${shown.bottom}, navbar ${shown.navbarBottom}, viewport ${shown.viewportHeight})`,
        );
        assert.ok(shown.hit, `the panel's title is covered by ${shown.by}`);
        await new Promise(resolve => setTimeout(resolve, 6500));
        assert.ok(await panel.isVisible(), 'still open 6.5 s after the tap');
        assert.equal(await button(page, 'Transcription panel').getAttribute('aria-pressed'), 'true');
        await screenshot(page, 'console-phone-transcription');
        await button(panel, 'Close').tap();
        await panel.waitFor({ state: 'hidden' });
    });

    it("shows the dose-constraint check's result in the Voice Assistant panel as well as in the transcript", async () => {
        const index = (await sessions()).length - 1;
        await serverSays(
            {
                toolCall: {
                    functionCalls: [
                        {
                            id: 'fc-phone-1',
                            name: 'check_dose_constraint',
                            args: { organ: 'spinal cord', metric: 'Dmax', value: 30, fractions: 10 },
                        },
                    ],
                },
            },
            index,
        );
        const voice = page.getByTestId('voice-panel');
        const check = voice.locator('[data-speaker="tool"]').filter({ hasText: '36 Gy EQD2' });
        await check.waitFor();
        assert.match(await check.textContent(), /Dose-constraint check.*within limit/s);
        await button(page, 'Transcription panel').tap();
        await page.getByTestId('transcription-panel').locator('[data-speaker="tool"]').filter({ hasText: '36 Gy EQD2' }).waitFor();
        await assertAccessible(page, 'radiotherapy console on a phone, dose check shown');
        await screenshot(page, 'console-phone-dose-check');
        await disconnect();
    });
});

describe('radiotherapy chat', () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('asks a question and shows the answer', async () => {
        await control('/reset', {});
        await signInAs(page, FIXTURES.radiotherapist, 'doctor', '/radiotherapist-chat');
        await page.getByRole('heading', { level: 1, name: 'Radiotherapy Chat Assistant' }).waitFor();
        const input = page.getByPlaceholder('Type your question...');
        const send = button(page, 'Send');
        assert.ok(await send.isDisabled(), 'Send is disabled while empty');
        await input.fill('   ');
        assert.ok(await send.isDisabled(), 'blank text does not count');

        await control('/generate-delay', { seconds: 1.5 }); // long enough to see the wait
        await input.fill('What is the QUANTEC spinal cord Dmax limit for 30 Gy in 10 fractions?');
        await input.press('Enter');
        await page.getByTestId('chat-thinking').waitFor();
        assert.ok(await send.isDisabled(), 'Send is disabled while waiting');
        const answer = page.locator('li[data-sender="assistant"]').filter({ hasText: '[Gemini double]' });
        await answer.waitFor();
        assert.equal(await answer.locator('.chat-sender').textContent(), 'Assistant');
        const question = page.locator('li[data-sender="user"]');
        assert.equal(await question.count(), 1);
        assert.equal(await question.locator('.chat-sender').textContent(), 'User');
        assert.match(await question.textContent(), /spinal cord Dmax/);
        assert.equal(await input.inputValue(), '');
        const asked = await control('/generate-requests');
        assert.ok(asked.some(r => r.text.includes('spinal cord Dmax')), 'the question went to the model');
        await control('/generate-delay', { seconds: 0 });

        // A failed answer: the server's message, and the question is kept to send again.
        await control('/generate-error', { status: 500, code: 'INTERNAL', message: 'Internal error encountered.' });
        await input.fill('And for 8 Gy in one fraction?');
        await input.press('Enter');
        await page.getByTestId('chat-error').filter({ hasText: 'Internal error encountered.' }).waitFor();
        assert.equal(await input.inputValue(), 'And for 8 Gy in one fraction?');
        assert.equal(await page.locator('li[data-sender="user"]').count(), 1);

        // A follow-up continues the same server-side conversation.
        await input.fill('And for 8 Gy in one fraction?');
        await send.click();
        await waitFor(async () => (await page.locator('li[data-sender="assistant"]').count()) === 2, 'second answer');
        await assertAccessible(page, 'radiotherapy chat');
        await screenshot(page, 'radiotherapy-chat');
    });
});
