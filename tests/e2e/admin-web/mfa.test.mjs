// Two-factor sign-in in the admin console (the server runs with ADMIN_MFA_REQUIRED): an admin
// without it is sent to enrolment right after the password (QR code and key, a first code,
// the recovery codes once) and only then reaches the console; signing in again asks for a code
// (computed here, RFC 6238 with node:crypto), and a wrong one is refused on the form.
//
//   BASE_URL, ADMIN_EMAIL, ADMIN_PASSWORD, ARTIFACTS_DIR as for console.test.mjs
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const require = createRequire(new URL('../../../admin-web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
const ADMIN_EMAIL = process.env.ADMIN_EMAIL;
const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD;
const ARTIFACTS_DIR = path.resolve(process.env.ARTIFACTS_DIR ?? 'artifacts/admin-web');
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CONSOLE = `${BASE_URL}/admin`;
const TIMEOUT = 20_000;

const base32 = text => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    let bits = '';
    for (const char of text.toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
    const bytes = [];
    for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
    return Buffer.from(bytes);
};
const totp = (secret, step) => {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(step));
    const digest = createHmac('sha1', base32(secret)).update(counter).digest();
    const offset = digest[digest.length - 1] & 0x0f;
    return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
};
const currentStep = () => Math.floor(Date.now() / 1000 / 30);

let userDataDir;
let context;
let page;
const pageErrors = [];

const signInWithPassword = async () => {
    await page.goto(`${CONSOLE}/login`);
    await page.locator('input[name=email]').fill(ADMIN_EMAIL);
    await page.locator('input[name=password]').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
};

describe('admin two-factor sign-in', { timeout: 120_000 }, () => {
    before(async () => {
        assert.ok(ADMIN_EMAIL && ADMIN_PASSWORD, 'ADMIN_EMAIL and ADMIN_PASSWORD must be set');
        mkdirSync(ARTIFACTS_DIR, { recursive: true });
        userDataDir = mkdtempSync(path.join(tmpdir(), 'cara-admin-mfa-'));
        context = await chromium.launchPersistentContext(userDataDir, {
            executablePath: CHROMIUM_PATH,
            headless: true,
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic'],
            locale: 'en-US',
            viewport: { width: 1280, height: 860 },
        });
        context.setDefaultTimeout(TIMEOUT);
        page = context.pages()[0] ?? (await context.newPage());
        page.on('pageerror', error => pageErrors.push(error));
    });

    after(async () => {
        await context?.close();
        if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    });

    let secret;
    let enrolStep;

    it('sends an admin without two-factor to enrolment before the console', async () => {
        await signInWithPassword();
        const form = page.getByTestId('mfa-enroll');
        await form.waitFor();
        // No session yet: nothing but the enrolment.
        const cookies = await context.cookies();
        assert.equal(cookies.find(c => c.name === 'cara_admin_session'), undefined);
        await page.waitForFunction(() => {
            const img = document.querySelector('img.cara-mfa-qr');
            return img && img.complete && img.naturalWidth > 0;
        });
        secret = (await page.getByTestId('mfa-secret').textContent()).trim();
        await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'mfa-enrolment.png'), fullPage: true });
        await page.getByLabel('Authentication code').fill('000000');
        await page.getByRole('button', { name: 'Turn on and continue' }).click();
        await form.locator('[role=alert]').filter({ hasText: 'The code is not valid' }).waitFor();
        enrolStep = currentStep();
        await page.getByLabel('Authentication code').fill(totp(secret, enrolStep));
        await page.getByRole('button', { name: 'Turn on and continue' }).click();
        const codes = page.getByTestId('mfa-recovery-codes');
        await codes.waitFor();
        assert.equal(await codes.locator('code').count(), 10);
        await page.getByRole('button', { name: 'I have saved my recovery codes' }).click();
        await page.getByText('Welcome back, Administrator!').waitFor();
        await page.waitForURL(url => url.pathname === '/admin/' || url.pathname === '/admin');
        assert.ok((await context.cookies()).find(c => c.name === 'cara_admin_session'));
    });

    it('asks for a code at the next sign-in', async () => {
        await context.clearCookies();
        await signInWithPassword();
        await page.getByTestId('mfa-code').waitFor();
        await page.getByLabel('Authentication code').fill('123456');
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.getByTestId('mfa-code').locator('[role=alert]').waitFor();
        const step = Math.max(currentStep(), enrolStep + 1);
        await page.getByLabel('Authentication code').fill(totp(secret, step));
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.getByText('Welcome back, Administrator!').waitFor();
        assert.deepEqual(pageErrors, []);
    });
});
