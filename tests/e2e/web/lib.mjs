// Shared helpers of the web app's browser tests (Debian's Chromium driven by
// playwright-core from web/node_modules). The pytest runner
// tests/e2e/test_web_app.py starts the API and sets:
//
//   BASE_URL       server origin (required)
//   ARTIFACTS_DIR  where screenshots go (default artifacts/e2e/web)
//   CHROMIUM_PATH  the browser (default /usr/bin/chromium)
//   FIXTURES       JSON of accounts seeded by the runner (see test_web_app.py)
//   CPU_THROTTLE   optional: slow every page's CPU this many times (e.g. 6), to
//                  bring out races a busy CI machine would hit

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(new URL('../../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
export const ARTIFACTS_DIR = path.resolve(process.env.ARTIFACTS_DIR ?? 'artifacts/e2e/web');
export const FIXTURES = JSON.parse(process.env.FIXTURES ?? '{}');
export const TIMEOUT = 20_000;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
];

/**
 * A fresh browser profile (empty localStorage) with one page.
 * `locale` sets the browser language (navigator.language and Accept-Language);
 * `args` adds Chromium switches (e.g. fake media devices for the consoles);
 * `viewport`, `isMobile` and `hasTouch` make it a phone (a touch screen, no mouse).
 */
export const openBrowser = async ({
    locale = 'en-US',
    colorScheme = 'light',
    args = [],
    viewport = { width: 1280, height: 860 },
    isMobile = false,
    hasTouch = false,
} = {}) => {
    const userDataDir = mkdtempSync(path.join(tmpdir(), 'cara-web-e2e-'));
    const context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM_PATH,
        args: [...CHROMIUM_ARGS, `--lang=${locale}`, ...args],
        locale,
        colorScheme,
        viewport,
        isMobile,
        hasTouch,
    });
    context.setDefaultTimeout(TIMEOUT);
    const page = context.pages()[0] ?? (await context.newPage());
    const throttle = Number(process.env.CPU_THROTTLE ?? 1);
    if (throttle > 1) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
    }
    const errors = [];
    page.on('pageerror', error => errors.push(String(error)));
    return {
        context,
        page,
        /** Uncaught exceptions in the page so far: a test should end with none. */
        pageErrors: errors,
        close: async () => {
            await context.close();
            rmSync(userDataDir, { recursive: true, force: true });
        },
    };
};

export const url = route => `${BASE_URL}${route}`;

export const screenshot = async (page, name) => {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
};

/** axe-core on the current page; fails on serious or critical violations. */
export const assertAccessible = async (page, label) => {
    // Evaluated through the debugging protocol: the app's CSP (script-src 'self') refuses inline scripts.
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(async () =>
        // eslint-disable-next-line no-undef
        window.axe.run(document, { resultTypes: ['violations'] }),
    );
    const serious = result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical');
    const report = serious
        .map(v => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map(n => n.target.join(' ')).join('\n    ')}`)
        .join('\n');
    assert.equal(serious.length, 0, `${label}: accessibility violations\n${report}`);
};

/** A unique email for an account created by a test. */
export const uniqueEmail = prefix => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

/** POST JSON to the API (outside the browser), returning status and body. */
export const apiPost = async (route, body, token) => {
    const response = await fetch(url(route), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
};

/** Wait until the SPA has navigated to `route` (path only). */
export const waitForPath = async (page, route) => {
    await page.waitForURL(current => new URL(current).pathname === route, { timeout: TIMEOUT });
};

/** The newest email sent to `to` whose raw text matches `like` (waits up to TIMEOUT). */
export const waitForMail = async (to, like = /./) => {
    const { readdirSync } = await import('node:fs');
    const folder = process.env.MAILBOX_DIR;
    assert.ok(folder, 'MAILBOX_DIR is not set');
    const deadline = Date.now() + TIMEOUT;
    while (Date.now() < deadline) {
        const files = readdirSync(folder).sort().reverse();
        for (const name of files) {
            const text = readFileSync(path.join(folder, name), 'utf8');
            if (!text.toLowerCase().includes(`to: ${to.toLowerCase()}`)) continue;
            const unfolded = text.replace(/=\r?\n/g, '');
            if (like.test(unfolded) || like.test(mailBody(text))) return unfolded;
        }
        await new Promise(resolve => setTimeout(resolve, 200));
    }
    throw new Error(`no mail to ${to} within ${TIMEOUT} ms`);
};

/** The text of a raw mail's body (base64 or quoted-printable decoded). */
export const mailBody = raw => {
    const split = raw.search(/\r?\n\r?\n/);
    const headers = raw.slice(0, split);
    let body = raw.slice(split).trim();
    if (/content-transfer-encoding:\s*base64/i.test(headers)) {
        body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    } else if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
        body = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
    }
    return body;
};

/** The sign-up link mailed to `email` (a doctor or hospital who signed themselves up). */
export const signupLink = async email => {
    const mail = await waitForMail(email, /complete-signup/);
    const link = mailBody(mail).match(/https?:\/\/\S+\/complete-signup\?token=[\w-]+/)?.[0];
    assert.ok(link, `no sign-up link in the mail:\n${mail}`);
    return link;
};

/** Open the mailed sign-up link in `page` and press "Create my account", as the new user would. */
export const followSignupLink = async (page, email) => {
    await page.goto(await signupLink(email));
    await page.getByRole('button', { name: 'Create my account' }).click();
};

/**
 * Sign someone up outside the browser, the whole way: the form (202), then the mailed link
 * (POST /api/auth/complete-signup). Returns that last answer (201 and the new session).
 */
export const apiSignup = async body => {
    const first = await apiPost('/api/auth/signup', body);
    if (first.status !== 202) return first;
    const token = new URL(await signupLink(body.email)).searchParams.get('token');
    return apiPost('/api/auth/complete-signup', { token });
};

/**
 * Sign in from the page without the login form, the way the app does (its header, so the
 * server sets the HttpOnly refresh cookie in this browser), then open `route`: the app restores
 * the session from the cookie. Returns the login answer (its access token for API calls).
 */
export const browserLogin = (page, account, role) =>
    page.evaluate(
        async credentials => {
            const response = await fetch('/api/auth/login', {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
                body: JSON.stringify(credentials),
            });
            return { status: response.status, body: await response.json().catch(() => null) };
        },
        { email: account.email, password: account.password, role },
    );

/**
 * The session this browser holds (its refresh cookie), as the app restores it: `{ token, user }`,
 * or nulls when signed out. The cookie rotates, as at any refresh.
 */
export const pageSession = (page, app = 'web') =>
    page.evaluate(async which => {
        const response = await fetch(`/api/auth/refresh?app=${which}`, {
            method: 'POST',
            headers: { 'X-Requested-With': 'XMLHttpRequest' },
        });
        const body = response.ok ? await response.json() : {};
        return { token: body.token ?? null, user: body.user ?? null };
    }, app);

export const signInAs = async (page, account, role, route = '/') => {
    // Signed out first: the page's own session restore (a refresh answering with the previous
    // session's rotated cookie) must not land after this login's cookie.
    await page.context().clearCookies();
    await page.goto(url('/privacy-policy'));
    await page.waitForLoadState('networkidle');
    const { status, body } = await browserLogin(page, account, role);
    assert.equal(status, 200, `login as ${role} failed: ${JSON.stringify(body)}`);
    await page.goto(url(route));
    return body;
};
