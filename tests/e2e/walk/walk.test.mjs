// The screen walk (run by tests/e2e/test_walk.py): every screen of the web app
// and the admin console, at a phone and a desktop size, in English and Arabic,
// each in the light and the dark theme, in one Chromium. A screen is loaded once
// per language; the sizes (viewport) and themes (the apps follow a theme chosen
// in another tab, which a storage event stands for) change on the loaded page,
// so eight variants cost two page loads. On every variant:
//   - the page does not overflow horizontally;
//   - no button, input, select or textarea is covered by another element
//     (document.elementFromPoint at its centre, at every scroll position of
//     the page: a control hidden under a fixed bar at one position but
//     reachable at another passes, one never reachable fails);
//   - an open dialog's actions are inside the viewport without scrolling;
//   - axe reports no serious or critical violation;
//   - the browser console logged no error or warning.
// Some screens also check what they are for when loaded (at their first size): each
// role's navbar links, in the page's language and direction, each opening its page,
// at both sizes (a phone through the menu button); no navbar on the password reset
// page; every profile tab whole on a phone.
// Screenshots: SCREENS_DIR/<app>/<size>/<lang>-<theme>/<screen>.png (kept, not compared).
// WALK_ONLY (a regular expression on "<app>/<screen>") narrows the walk while
// working on a screen.
// WALK_CAPTURE_ONLY=1 only takes the screenshots, checks nothing, and signs in
// the way the apps did before browser sessions (token and user in
// localStorage): ops/screens-before runs it on the apps as they were before the
// phone-first work, for before/after pictures.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';

const require = createRequire(new URL('../../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
const SCREENS_DIR = path.resolve(process.env.SCREENS_DIR ?? 'artifacts/screens');
const FIXTURES = JSON.parse(process.env.FIXTURES ?? '{}');
const ONLY = process.env.WALK_ONLY ? new RegExp(process.env.WALK_ONLY) : null;
const CAPTURE_ONLY = process.env.WALK_CAPTURE_ONLY === '1';

const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };
const LANGUAGES = ['en', 'ar'];
const THEMES = ['light', 'dark'];

const click = selector => async page => {
    await page.locator(selector).first().click();
    await page.waitForTimeout(400); // the dialog's entrance animation
};

/** The console with everything open: transcript and summary/report panels, the camera preview on. */
const openConsolePanels = async page => {
    const toggles = page.locator('.control-tray button[aria-controls]'); // transcription, summary
    for (let i = 0; i < (await toggles.count()); i += 1) await toggles.nth(i).click();
    await page.getByTestId('camera-toggle').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="console-video"]:not([hidden])')?.readyState >= 2);
};

/** The text of `selector` must be the language's `expected`. */
const expectText = (selector, expected) => async (page, language) => {
    const text = (await page.locator(selector).first().textContent()).trim();
    assert.equal(text, expected[language], `${selector} reads '${text}'`);
};

/** Sign in from the loaded sign-in page as `account` (from the walk's fixtures), and wait for `testId`. */
const signInUntil = (account, testId) => async page => {
    await page.locator('input[name="email"]').fill(FIXTURES[account].email);
    await page.locator('input[name="password"]').fill(FIXTURES[account].password);
    await page.locator('form.auth-form button[type="submit"]').click();
    await page.getByTestId(testId).waitFor();
    await page.waitForTimeout(300);
};

/** The web app's common texts per language (the navbar's links). */
const COMMON = Object.fromEntries(
    LANGUAGES.map(language => [
        language,
        JSON.parse(readFileSync(new URL(`../../../web/src/locales/${language}/common.json`, import.meta.url), 'utf8')),
    ]),
);

/**
 * The navbar offers `expected` ([link, path, English text] in order), in the page's language,
 * left to right or right to left as the language reads; each link opens its page (through the
 * menu button on a phone), where it is the current link. Pages without the navbar (a doctor's
 * plans) are left with the browser's Back.
 */
const followsNavigation = expected => async (page, language) => {
    const toggle = page.getByTestId('nav-toggle');
    const phone = await toggle.isVisible();
    const openMenu = async () => {
        if (phone && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    };
    await openMenu();
    const links = await page.locator('.nav-links a').evaluateAll(found =>
        found.map(a => ({ id: a.dataset.nav, path: new URL(a.href).pathname, text: a.textContent.trim(), x: a.getBoundingClientRect().x })),
    );
    assert.deepEqual(
        links.map(({ id, path, text }) => [id, path, text]),
        expected.map(([id, path, english]) => [id, path, COMMON[language][english]]),
        'the navbar links',
    );
    if (!phone) {
        const rtl = await page.evaluate(() => getComputedStyle(document.documentElement).direction === 'rtl');
        const xs = links.map(link => link.x);
        const ordered = xs.every((x, i) => i === 0 || (rtl ? x < xs[i - 1] : x > xs[i - 1]));
        assert.ok(ordered, `the links read ${rtl ? 'right to left' : 'left to right'} (${xs.join(', ')})`);
    }
    for (const [id, route] of expected) {
        await openMenu();
        await page.locator(`.nav-links a[data-nav="${id}"]`).click();
        await page.waitForURL(current => new URL(current).pathname === route);
        await page.locator('main h1').first().waitFor();
        if (await page.locator('.navbar').count()) {
            if (phone) assert.equal(await toggle.getAttribute('aria-expanded'), 'false', `the menu closes on ${route}`);
            const current = page.locator('.nav-links a[aria-current="page"]');
            assert.equal(await current.getAttribute('data-nav'), id, `${route}: its link is the current one`);
        } else {
            await page.goBack();
            await page.locator('.navbar').waitFor();
        }
    }
    await page.waitForTimeout(300);
};

/** The page shows no navbar, only the language and theme bar (like the sign-in pages). */
const withoutNavbar = async page => {
    assert.equal(await page.locator('.navbar').count(), 0, 'no navbar');
    await page.locator('.preferences-bar').waitFor();
};

/** Every profile tab is whole inside the tab strip (none cut or scrolled out of sight). */
const wholeTabs = async page => {
    const cut = await page.locator('[role="tablist"]').evaluate(list => {
        const outer = list.getBoundingClientRect();
        return [...list.querySelectorAll('[role="tab"]')]
            .filter(tab => {
                const box = tab.getBoundingClientRect();
                return box.left < outer.left - 1 || box.right > outer.right + 1 || box.right > window.innerWidth;
            })
            .map(tab => tab.textContent.trim());
    });
    assert.deepEqual(cut, [], 'tabs cut by the strip');
};

/** Until `testId` shows (content the page loads after its heading). */
const shows = testId => async page => {
    await page.getByTestId(testId).first().waitFor();
    await page.waitForTimeout(200);
};

/** A doctor's navbar links ([link, path, English text]). */
const DOCTOR_NAVIGATION = (console, radiotherapist = false) => [
    ['console', console, 'My console'],
    ['assistant', '/assistant', 'General assistant'],
    ...(radiotherapist ? [['chat', '/radiotherapist-chat', 'Chat']] : []),
    ['consultations', '/consultations', 'Consultations'],
    ['dashboard', '/doctor-dashboard', 'Dashboard'],
    ['subscription', '/doctor-subscription', 'Subscription'],
    ['profile', '/profile', 'Profile'],
];

// [app, screen, path, account (null: signed out), action after load, only at this size]
const SCREENS = [
    ['web', 'role-selection', '/', null],
    ['web', 'doctor-login', '/doctor-login', null],
    ['web', 'hospital-login', '/hospital-login', null],
    ['web', 'admin-login', '/admin-login', null],
    ['web', 'forgot-password', '/forgot-password', null, withoutNavbar],
    ['web', 'doctor-register', '/doctor-register', null],
    ['web', 'hospital-register', '/hospital-register', null],
    ['web', 'privacy-policy', '/privacy-policy', null],
    ['web', 'terms', '/terms', null],
    ['web', 'not-found', '/no-such-page', null],
    ['web', 'admin-register', '/admin-register', null],
    // The links mailed for an email address, opened with a token that is no longer good.
    ['web', 'complete-signup', '/complete-signup?token=no-such-token', null, withoutNavbar],
    ['web', 'verify-email-invalid', '/verify-email?token=no-such-token', null],
    ['web', 'confirm-email-change-invalid', '/confirm-email-change?token=no-such-token', null],
    ['web', 'undo-email-change-invalid', '/undo-email-change?token=no-such-token', null],
    // Two-factor sign-in: the code step, and a doctor's enrolment that the hospital requires.
    ['web', 'mfa-code-step', '/hospital-login', null, signInUntil('mfaHospital', 'mfa-code-step')],
    ['web', 'mfa-forced-enrolment', '/doctor-login', null, signInUntil('mfaDoctor', 'mfa-forced-enrolment')],
    // ... and its next state: the QR code, the key and the first code's field.
    ['web', 'mfa-forced-enrolment-setup', '/doctor-login', null, async page => {
        await signInUntil('mfaDoctor', 'mfa-forced-enrolment')(page);
        await page.locator('[data-testid="mfa-forced-enrolment"] button').first().click();
        await page.getByTestId('mfa-enrolment').waitFor();
        await page.waitForFunction(() => document.querySelector('img.mfa-qr')?.complete);
        await page.waitForTimeout(300);
    }],
    ['web', 'radiologist-console', '/radiologist', 'radiologist'],
    ['web', 'console-panels-camera', '/radiologist', 'radiologist', openConsolePanels],
    ['web', 'navbar-menu', '/radiologist', 'radiologist', click('[data-testid="nav-toggle"]'), 'phone'],
    ['web', 'doctor-dashboard', '/doctor-dashboard', 'radiologist'],
    ['web', 'assistant-console', '/assistant', 'radiologist'],
    ['web', 'consultations', '/consultations', 'radiologist'],
    // A consultation of the record: its stored transcript, a report draft, the note being written.
    ['web', 'consultation', `/consultations/${FIXTURES.consultation}`, 'radiologist', shows('consultation-page')],
    ['web', 'subscription-success', '/subscription-success', 'radiologist'],
    ['web', 'doctor-subscription', '/doctor-subscription', 'radiologist'],
    ['web', 'doctor-profile', '/profile', 'radiologist', wholeTabs],
    ['web', 'two-factor-setup', '/profile', 'radiologist', async page => {
        await page.getByTestId('two-factor-setup').click();
        await page.getByTestId('mfa-enrolment').waitFor();
        await page.waitForTimeout(300);
    }],
    // Every doctor's navigation: their console, the general assistant, the radiotherapy chat for
    // radiotherapists, consultations, the dashboard, the plans and the profile.
    ['web', 'doctor-navigation', '/profile', 'radiologist', followsNavigation(DOCTOR_NAVIGATION('/radiologist')), 'phone'],
    ['web', 'radiotherapist-console', '/radiotherapist', 'radiotherapist'],
    ...['phone', 'desktop'].map(size => [
        'web',
        'radiotherapist-navigation',
        '/radiotherapist',
        'radiotherapist',
        followsNavigation(DOCTOR_NAVIGATION('/radiotherapist', true)),
        size,
    ]),
    ['web', 'radiotherapy-chat', '/radiotherapist-chat', 'radiotherapist'],
    ['web', 'other-specialty-console', '/cardiologist', 'radiotherapist'],
    ['web', 'general-practitioner-console', '/general-practitioner', 'generalPractitioner'],
    ['web', 'nurse-console', '/nurse', 'nurse'],
    ['web', 'unsubscribed-dashboard', '/doctor-dashboard', 'unsubscribedDoctor'],
    ['web', 'doctor-plans', '/doctor-subscription', 'unsubscribedDoctor'],
    // A hospital-created doctor sees the hospital's plan (Bronze) by name.
    [
        'web',
        'hospital-doctor-dashboard',
        '/doctor-dashboard',
        'hospitalDoctor',
        expectText('[data-testid="plan-name"]', { en: 'Bronze', ar: 'البرونزية' }),
    ],
    ['web', 'hospital-doctor-console', '/cardiologist', 'hospitalDoctor'],
    // A signed consultation: the note read-only, its exports.
    [
        'web',
        'consultation-signed',
        `/consultations/${FIXTURES.signedConsultation}`,
        'hospitalDoctor',
        shows('consultation-page'),
    ],
    ['web', 'hospital-dashboard', '/dashboard', 'hospital'],
    ...['phone', 'desktop'].map(size => [
        'web',
        'hospital-navigation',
        '/dashboard',
        'hospital',
        followsNavigation([
            ['dashboard', '/dashboard', 'Dashboard'],
            ['doctors', '/manage', 'Doctors'],
            ['signed-notes', '/signed-notes', 'Signed notes'],
            ['security', '/security', 'Security'],
            ['subscription', '/subscription', 'Subscription'],
            ['profile', '/profile', 'Profile'],
        ]),
        size,
    ]),
    ['web', 'signed-notes', '/signed-notes', 'hospital', shows('signed-note-row')],
    ['web', 'manage-doctors', '/manage', 'hospital'],
    ['web', 'add-doctor', '/manage', 'hospital', click('main .page-header button')],
    ['web', 'hospital-subscription', '/subscription', 'hospital'],
    ['web', 'hospital-plans', '/subscription', 'hospital', click('main button.btn-primary')],
    ['web', 'hospital-profile', '/profile', 'hospital'],
    ['web', 'security', '/security', 'hospital'],
    ['web', 'doctor-notes', `/doctors/${FIXTURES.hospitalDoctorId}/notes`, 'hospital', shows('signed-note-row')],
    ['admin', 'login', '/admin/login', null],
    ['admin', 'dashboard', '/admin/', 'admin'],
    ['admin', 'hospitals', '/admin/hospitals', 'admin'],
    ['admin', 'hospital-show', `/admin/hospitals/${FIXTURES.hospitalId}/show`, 'admin'],
    ['admin', 'doctors', '/admin/doctors', 'admin'],
    ['admin', 'doctor-show', `/admin/doctors/${FIXTURES.hospitalDoctorId}/show`, 'admin'],
    ['admin', 'payments', '/admin/payment-history', 'admin'],
    ['admin', 'audit-events', '/admin/audit-events', 'admin'],
    ['admin', 'ai-usage', '/admin/ai-usage', 'admin'],
];

const ROLES = {
    admin: 'admin',
    radiologist: 'doctor',
    radiotherapist: 'doctor',
    unsubscribedDoctor: 'doctor',
    generalPractitioner: 'doctor',
    nurse: 'doctor',
    hospitalDoctor: 'doctor',
    hospital: 'hospital',
};

/**
 * The browser signed in as `account` (null: signed out), the way the apps sign in: a login from
 * the page sets the app's HttpOnly session cookie, which the next page load restores. Kept
 * while consecutive screens use the same account.
 */
const signedInAs = new WeakMap();
/** CAPTURE_ONLY: the token and user the older apps read from localStorage, per page. */
const storedSession = new WeakMap();
const signInBrowser = async (page, account) => {
    if (account === (signedInAs.get(page) ?? null)) return;
    await page.context().clearCookies();
    signedInAs.delete(page);
    storedSession.delete(page);
    if (!account) return;
    const { email, password } = FIXTURES[account];
    if (CAPTURE_ONLY) {
        const body = await page.evaluate(
            async body =>
                (
                    await fetch('/api/auth/login', {
                        method: 'POST',
                        headers: { 'content-type': 'application/json' },
                        body: JSON.stringify(body),
                    })
                ).json(),
            { email, password, role: ROLES[account] },
        );
        assert.ok(body.token, `login of ${account}`);
        storedSession.set(page, { token: body.token, user: JSON.stringify(body.user) });
        signedInAs.set(page, account);
        return;
    }
    const status = await page.evaluate(
        async body =>
            (
                await fetch('/api/auth/login', {
                    method: 'POST',
                    headers: { 'content-type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
                    body: JSON.stringify(body),
                })
            ).status,
        { email, password, role: ROLES[account] },
    );
    assert.equal(status, 200, `login of ${account}`);
    signedInAs.set(page, account);
};

/** Run in the page: every check but axe, as a list of problems. */
const inspect = () => {
    const problems = [];
    const viewport = { width: window.innerWidth, height: window.innerHeight };
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) {
        const wide = [...document.querySelectorAll('body *')]
            .filter(el => {
                const box = el.getBoundingClientRect();
                return box.width > 0 && (box.right > root.clientWidth + 1 || box.left < -1);
            })
            .slice(-3) // the innermost ones: the cause, not its containers
            .map(el => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`);
        problems.push(`page overflows horizontally (${root.scrollWidth} > ${root.clientWidth}): ${wide.join(', ')}`);
    }

    const describe = el =>
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}` +
        `[${(el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || '').trim().slice(0, 30)}]`;
    const clippedBy = el => {
        for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
            const style = getComputedStyle(node);
            if (/(auto|scroll|hidden)/.test(style.overflow + style.overflowX + style.overflowY)) {
                const outer = node.getBoundingClientRect();
                const box = el.getBoundingClientRect();
                const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
                if (x < outer.left || x > outer.right || y < outer.top || y > outer.bottom) return true;
            }
        }
        return false;
    };
    // With a modal dialog open, the page under it is inert: only the dialog's controls count.
    // So with the phone's navbar menu open: it lies over the page, which a tap outside the
    // menu (or the menu button) brings back; the menu's own controls must all be reachable.
    const modal =
        [...document.querySelectorAll('[aria-modal="true"]')].find(el => el.checkVisibility()) ??
        document.querySelector('.nav-collapse[data-open="true"]')?.closest('.navbar');
    const controls = [
        ...(modal ?? document).querySelectorAll('button, input:not([type="hidden"]), select, textarea'),
    ].filter(el => {
        const box = el.getBoundingClientRect();
        // Transparent native inputs under a styled control (MUI's select) are not what the user hits.
        return box.width >= 4 && box.height >= 4 && el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
    });
    // Scroll positions of the page: top, every half screen, bottom.
    const scroller = document.scrollingElement;
    const start = scroller.scrollTop;
    const positions = [];
    for (let y = 0; y < scroller.scrollHeight - viewport.height; y += viewport.height / 2) positions.push(y);
    positions.push(Math.max(0, scroller.scrollHeight - viewport.height));
    const reached = new Map(controls.map(el => [el, { seen: false, hit: false, by: null }]));
    for (const y of positions) {
        scroller.scrollTop = y;
        for (const el of controls) {
            const state = reached.get(el);
            if (state.hit) continue;
            const box = el.getBoundingClientRect();
            const [x, cy] = [box.left + box.width / 2, box.top + box.height / 2];
            if (x < 0 || x >= viewport.width || cy < 0 || cy >= viewport.height) continue;
            if (clippedBy(el)) continue;
            state.seen = true;
            const hit = document.elementFromPoint(x, cy);
            const label = hit?.closest('label');
            if (
                hit &&
                (hit === el ||
                    el.contains(hit) ||
                    hit.contains(el) ||
                    (label && ([...(el.labels ?? [])].includes(label) || label.contains(el))))
            )
                state.hit = true;
            else state.by = hit ? describe(hit) : 'nothing';
        }
    }
    scroller.scrollTop = start;
    for (const [el, state] of reached)
        if (state.seen && !state.hit) problems.push(`${describe(el)} is covered by ${state.by}`);

    for (const dialog of document.querySelectorAll('[role="dialog"], [role="alertdialog"]')) {
        if (!dialog.checkVisibility()) continue;
        const buttons = [...dialog.querySelectorAll('button')].filter(b => b.checkVisibility());
        const actions = buttons.filter(b => b.closest('.sub-modal-footer, .MuiDialogActions-root, footer'));
        for (const button of actions.length ? actions : buttons.slice(-1)) {
            const box = button.getBoundingClientRect();
            if (box.bottom > viewport.height || box.top < 0 || box.right > viewport.width || box.left < 0)
                problems.push(`dialog action ${describe(button)} is outside the viewport (${Math.round(box.top)}..${Math.round(box.bottom)})`);
        }
    }
    return problems;
};

const axe = async page => {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    return result.violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `axe ${v.id} (${v.impact}): ${v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(' | ')}`);
};

let browser;
const failures = [];
let walked = 0;

before(async () => {
    browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            // The console's camera preview: Chromium's test pattern, no permission prompt.
            '--use-fake-ui-for-media-stream',
            '--use-fake-device-for-media-stream',
        ],
    });
});
after(async () => {
    await browser?.close();
});

/**
 * Switch the loaded page to `theme` the way a choice in another tab reaches it: the shared
 * localStorage key, and the storage event both apps listen to.
 */
const applyTheme = async (page, theme) => {
    await page.emulateMedia({ colorScheme: theme });
    await page.evaluate(theme => {
        localStorage.setItem('theme', theme);
        window.dispatchEvent(new StorageEvent('storage', { key: 'theme', newValue: theme }));
    }, theme);
    // The web app marks its theme on <html>; the admin console (MUI) re-renders from its store.
    await page.waitForFunction(
        theme => !document.documentElement.dataset.theme || document.documentElement.dataset.theme === theme,
        theme,
    );
    await page.waitForTimeout(150); // colour transitions
};

const walk = async language => {
    const sizes = Object.keys(SIZES);
    const context = await browser.newContext({ viewport: SIZES[sizes[0]], locale: language, colorScheme: THEMES[0] });
    await context.grantPermissions(['camera', 'microphone']);
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    let logged = [];
    page.on('console', message => {
        if (message.type() === 'error' || message.type() === 'warning') logged.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', error => logged.push(`uncaught: ${error}`));
    await page.goto(`${BASE_URL}/privacy-policy`);
    for (const [app, screen, route, account, action, onlyAt] of SCREENS) {
        if (ONLY && !ONLY.test(`${app}/${screen}`)) continue;
        const shownSizes = sizes.filter(size => !onlyAt || onlyAt === size);
        // Capturing the older apps, which read the theme only on load: one load per theme.
        const variants = CAPTURE_ONLY
            ? THEMES.flatMap(theme => shownSizes.map(size => [size, theme]))
            : shownSizes.flatMap(size => THEMES.map(theme => [size, theme]));
        await signInBrowser(page, account);
        /** Load the screen at `size` in `theme` and run its action; false when it could not be. */
        const load = async (size, theme) => {
            await page.setViewportSize(SIZES[size]);
            await page.emulateMedia({ colorScheme: theme });
            await page.evaluate(
                ({ language, theme, session }) => {
                    localStorage.clear();
                    localStorage.setItem('locale', language);
                    localStorage.setItem('theme', theme);
                    if (session) for (const [key, value] of Object.entries(session)) localStorage.setItem(key, value);
                },
                { language, theme, session: storedSession.get(page) ?? null },
            );
            logged = [];
            try {
                await page.goto(`${BASE_URL}${route}`);
                await page.locator('h1, [role="heading"], main').first().waitFor({ timeout: CAPTURE_ONLY ? 10_000 : 30_000 });
                // Until no spinner or progress bar shows (lists and figures loaded).
                await page
                    .locator('.spinner, .MuiCircularProgress-root, .MuiLinearProgress-root')
                    .first()
                    .waitFor({ state: 'hidden', timeout: 10_000 })
                    .catch(() => {});
                await page.waitForTimeout(200);
                // The older apps may lack what an action looks for: their screen is taken as it is.
                if (action) await (CAPTURE_ONLY ? action(page, language).catch(() => {}) : action(page, language));
                return true;
            } catch (error) {
                failures.push(`${app}/${size}/${language}-${theme}/${screen}: could not be walked: ${String(error).split('\n')[0]}`);
                const folder = path.join(SCREENS_DIR, app, size, `${language}-${theme}`);
                mkdirSync(folder, { recursive: true });
                await page.screenshot({ path: path.join(folder, `${screen}.failed.png`) }).catch(() => {});
                return false;
            }
        };
        let shown = variants[0];
        if (!(await load(...shown))) {
            walked += 1;
            continue;
        }
        for (const [size, theme] of variants) {
            const label = `${app}/${size}/${language}-${theme}/${screen}`;
            try {
                if (CAPTURE_ONLY && theme !== shown[1]) {
                    if (!(await load(size, theme))) break;
                } else {
                    if (size !== shown[0]) {
                        await page.setViewportSize(SIZES[size]);
                        await page.waitForTimeout(150); // layout and media queries settle
                    }
                    if (theme !== shown[1]) await applyTheme(page, theme);
                }
                shown = [size, theme];
                const problems = CAPTURE_ONLY ? [] : [...(await page.evaluate(inspect)), ...(await axe(page)), ...logged];
                logged = [];
                const folder = path.join(SCREENS_DIR, app, size, `${language}-${theme}`);
                mkdirSync(folder, { recursive: true });
                await page.screenshot({ path: path.join(folder, `${screen}.png`), fullPage: true });
                for (const problem of problems) failures.push(`${label}: ${problem}`);
            } catch (error) {
                failures.push(`${label}: could not be walked: ${String(error).split('\n')[0]}`);
            }
            walked += 1;
        }
    }
    await context.close();
};

test('every screen, at both sizes, in English and Arabic, light and dark', async () => {
    const started = Date.now();
    // Two walks at a time: one per language.
    await Promise.all(LANGUAGES.map(walk));
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`walked ${walked} screens in ${seconds} s; screenshots in ${SCREENS_DIR}`);
    failures.sort();
    writeFileSync(path.join(SCREENS_DIR, 'walk-report.txt'), `${walked} screens walked in ${seconds} s\n${failures.join('\n')}\n`);
    if (CAPTURE_ONLY) return; // pictures only: what the older apps got wrong is in the report
    assert.equal(failures.length, 0, `${failures.length} problems:\n${failures.join('\n')}`);
});
