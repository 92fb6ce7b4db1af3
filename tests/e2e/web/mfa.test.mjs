// Two-factor sign-in in the clinician app, in Chromium against the real API: a hospital enrols
// from its profile's account security (QR code shown under the strict CSP, the key read from the
// page), saves its recovery codes, signs out, signs in with a code computed here (RFC 6238 with
// node:crypto), signs out, signs in with a recovery code, and is refused that recovery code a
// second time; its security page sets the rule that its doctors must enrol.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { apiSignup, openBrowser, screenshot, uniqueEmail, url, waitForPath } from './lib.mjs';

const PASSWORD = 'hospital-pass';

/** RFC 4648 base32 (the authenticator key) to bytes. */
const base32 = text => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    let bits = '';
    for (const char of text.replace(/=+$/, '').toUpperCase()) {
        const value = alphabet.indexOf(char);
        assert.ok(value >= 0, `not base32: ${char}`);
        bits += value.toString(2).padStart(5, '0');
    }
    const bytes = [];
    for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
    return Buffer.from(bytes);
};

/** The TOTP code (SHA-1, 6 digits, 30 s) of a time step. */
const totp = (secret, step) => {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(step));
    const digest = createHmac('sha1', base32(secret)).update(counter).digest();
    const offset = digest[digest.length - 1] & 0x0f;
    const value = (digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
    return String(value).padStart(6, '0');
};
const currentStep = () => Math.floor(Date.now() / 1000 / 30);

const button = (page, name) => page.getByRole('button', { name, exact: true });

const signInWithPassword = async (page, email) => {
    await page.goto(url('/hospital-login'));
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await button(page, 'Login').click();
};

const signOut = async page => {
    await page.getByTestId('profile-menu').click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await waitForPath(page, '/');
};

describe('two-factor sign-in', () => {
    let browser;
    let page;
    const email = uniqueEmail('mfa-hospital');

    before(async () => {
        const created = await apiSignup({
            role: 'hospital',
            name: 'Ridge Hospital',
            email,
            password: PASSWORD,
            phoneNumber: '0302123456',
            address: 'Castle Road, Accra',
            type: 'public',
            registrationNumber: `REG-MFA-${Date.now()}`,
            capacity: 400,
            country: 'Ghana',
            state: 'Greater Accra',
            website: 'https://ridge.example.org',
            privacyPolicyAccepted: true,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        browser = await openBrowser();
        page = browser.page;
    });

    after(async () => {
        await browser?.close();
    });

    let secret;
    let enrolStep;
    let recoveryCodes;

    it('enrols from the account security section with the QR code', async () => {
        await signInWithPassword(page, email);
        await waitForPath(page, '/dashboard');
        await page.goto(url('/profile'));
        const panel = page.getByTestId('two-factor');
        await panel.getByTestId('two-factor-state').filter({ hasText: 'Two-factor sign-in is off.' }).waitFor();
        await button(page, 'Set up two-factor sign-in').click();
        const qr = page.locator('img.mfa-qr');
        await qr.waitFor();
        // The QR code is a data: SVG the CSP's img-src allows: it must have rendered.
        await page.waitForFunction(() => {
            const img = document.querySelector('img.mfa-qr');
            return img && img.complete && img.naturalWidth > 0;
        });
        secret = (await page.getByTestId('mfa-secret').textContent()).trim();
        assert.match(secret, /^[A-Z2-7]{16,}$/);
        await screenshot(page, 'mfa-enrolment');
        // A wrong code is refused where the code is typed.
        await page.getByLabel('Authentication code', { exact: true }).fill('000000');
        await button(page, 'Turn on two-factor sign-in').click();
        await page.getByText('The code is not valid. Please try again.').waitFor();
        enrolStep = currentStep();
        await page.getByLabel('Authentication code', { exact: true }).fill(totp(secret, enrolStep));
        await button(page, 'Turn on two-factor sign-in').click();
        const codes = page.getByTestId('mfa-recovery-codes');
        await codes.waitFor();
        recoveryCodes = (await codes.locator('code').allTextContents()).map(code => code.trim());
        assert.equal(recoveryCodes.length, 10);
        assert.equal(new Set(recoveryCodes).size, 10);
        await button(page, 'I have saved my recovery codes').click();
        await panel.getByTestId('two-factor-state').filter({ hasText: 'Two-factor sign-in is on.' }).waitFor();
        await page.getByText('Recovery codes left: 10').waitFor();
    });

    it('signs in with a code from the authenticator', async () => {
        await signOut(page);
        await signInWithPassword(page, email);
        await page.getByTestId('mfa-code-step').waitFor();
        assert.equal(new URL(page.url()).pathname, '/hospital-login');
        // The code of the step after the enrolment's (the enrolment's own is not accepted twice;
        // a step either side of now is accepted).
        const step = Math.max(currentStep(), enrolStep + 1);
        await page.getByLabel('Authentication code', { exact: true }).fill(totp(secret, step));
        await button(page, 'Verify').click();
        await waitForPath(page, '/dashboard');
    });

    it('signs in with a recovery code, once', async () => {
        await signOut(page);
        await signInWithPassword(page, email);
        await page.getByTestId('mfa-code-step').waitFor();
        await page.getByLabel('Authentication code', { exact: true }).fill(recoveryCodes[0]);
        await button(page, 'Verify').click();
        await waitForPath(page, '/dashboard');

        await signOut(page);
        await signInWithPassword(page, email);
        await page.getByTestId('mfa-code-step').waitFor();
        await page.getByLabel('Authentication code', { exact: true }).fill(recoveryCodes[0]);
        await button(page, 'Verify').click();
        await page.getByText('The code is not valid. Please try again.').waitFor();
        assert.equal(new URL(page.url()).pathname, '/hospital-login');
        await page.getByLabel('Authentication code', { exact: true }).fill(recoveryCodes[1]);
        await button(page, 'Verify').click();
        await waitForPath(page, '/dashboard');
    });

    it("sets the hospital's rule for its doctors on the security page", async () => {
        await page.goto(url('/security'));
        const rule = page.getByLabel('Require two-factor sign-in for our doctors', { exact: true });
        await rule.waitFor();
        assert.equal(await rule.isChecked(), false);
        await rule.check();
        await page.getByText('Your doctors will set up two-factor sign-in at their next sign-in.').waitFor();
        await page.reload();
        await page.getByLabel('Require two-factor sign-in for our doctors', { exact: true }).waitFor();
        assert.equal(
            await page.getByLabel('Require two-factor sign-in for our doctors', { exact: true }).isChecked(),
            true,
        );
        assert.deepEqual(browser.pageErrors, []);
    });
});
