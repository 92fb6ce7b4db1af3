// Role selection, the three sign-in forms and password reset in Chromium
// against the real API: every validation message of spec §5, server errors
// shown once, inline, where each role lands after signing in,
// 'Remember me', and the emailed reset link followed end to end (worker +
// SMTP mailbox). Only unsubscribedDoctor's password is changed here.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';

import {
    apiPost,
    assertAccessible,
    FIXTURES,
    openBrowser,
    screenshot,
    TIMEOUT,
    url,
    mailBody,
    waitForMail,
    waitForPath,
} from './lib.mjs';

const heading = (page, name) => page.getByRole('heading', { level: 1, name });
const storage = (page, key) => page.evaluate(k => localStorage.getItem(k), key);
const toast = (page, text) => page.getByTestId('toast').filter({ hasText: text });
const fieldError = (page, text) => page.locator('.field-error', { hasText: text });
const loginButton = page => page.getByRole('button', { name: 'Login', exact: true });

/** Fill and submit a sign-in form. */
const signInWithForm = async (page, { email, password, remember = false }) => {
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    if (remember) await page.getByLabel('Remember me').check();
    await loginButton(page).click();
};

/** The body of a raw email, undoing the transfer encoding Python's mailer may pick for long lines. */

describe('role selection and sign-in', () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    afterEach(async () => {
        // Each case starts signed out, with nothing remembered.
        await page.context().clearCookies();
        await page.goto(url('/'));
        await page.evaluate(() => localStorage.clear());
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('offers Doctor and Hospital; Next waits for a choice and leads to that login page', async () => {
        await page.goto(url('/'));
        await heading(page, 'Welcome to Cara').waitFor();
        const next = page.getByRole('button', { name: 'Next' });
        const doctor = page.getByRole('radio', { name: 'Doctor' });
        const hospital = page.getByRole('radio', { name: 'Hospital' });
        assert.equal(await next.isDisabled(), true);
        assert.equal(await doctor.getAttribute('aria-checked'), 'false');
        assert.equal(await hospital.getAttribute('aria-checked'), 'false');
        assert.equal(await page.getByRole('radiogroup').count(), 1);
        assert.equal(await page.getByRole('link', { name: 'Register as Doctor' }).getAttribute('href'), '/doctor-register');
        assert.equal(
            await page.getByRole('link', { name: 'Register as Hospital' }).getAttribute('href'),
            '/hospital-register',
        );
        await assertAccessible(page, 'role selection');
        await screenshot(page, 'role-selection');

        await doctor.click();
        assert.equal(await doctor.getAttribute('aria-checked'), 'true');
        assert.equal(await next.isEnabled(), true);
        await assertAccessible(page, 'role selection (doctor chosen)');
        await next.click();
        await waitForPath(page, '/doctor-login');
        await heading(page, 'Doctor Login').waitFor();

        // /login is the same screen; the keyboard alone makes the choice.
        await page.goto(url('/login'));
        await heading(page, 'Welcome to Cara').waitFor();
        await doctor.focus();
        await page.keyboard.press('Space');
        assert.equal(await doctor.getAttribute('aria-checked'), 'true');
        await page.keyboard.press('ArrowRight');
        assert.equal(await hospital.getAttribute('aria-checked'), 'true');
        assert.equal(await doctor.getAttribute('aria-checked'), 'false');
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'role-hospital');
        // One tab stop in the group: the chosen card.
        assert.equal(await doctor.getAttribute('tabindex'), '-1');
        await next.click();
        await waitForPath(page, '/hospital-login');
        await heading(page, 'Hospital Login').waitFor();

        // Contrast holds in the dark theme too, with a card chosen.
        await page.getByTestId('theme-toggle').click();
        await page.goto(url('/'));
        await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
        await hospital.click();
        await assertAccessible(page, 'role selection (dark)');
        await screenshot(page, 'role-selection-dark');
    });

    it('checks the doctor form (spec §5) and is accessible', async () => {
        await page.goto(url('/doctor-login'));
        await heading(page, 'Doctor Login').waitFor();
        await assertAccessible(page, 'doctor login');
        await screenshot(page, 'doctor-login');
        assert.equal(await page.getByRole('link', { name: 'Forgot password?' }).getAttribute('href'), '/forgot-password');
        assert.equal(await page.getByRole('link', { name: 'Register as Doctor' }).getAttribute('href'), '/doctor-register');
        assert.equal(await page.getByRole('link', { name: 'Back to role selection' }).getAttribute('href'), '/');

        await loginButton(page).click();
        await fieldError(page, 'Email is required').waitFor();
        await fieldError(page, 'Password is required').waitFor();
        // One message per failure: under each field, no toast repeating it.
        assert.equal(await page.getByTestId('toast').count(), 0);
        const email = page.getByLabel('Email', { exact: true });
        assert.equal(await email.getAttribute('aria-invalid'), 'true');
        // The message is tied to its field for screen readers, and focus goes to it.
        const describedBy = await email.getAttribute('aria-describedby');
        assert.equal((await page.locator(`[id="${describedBy}"]`).textContent()).trim(), 'Email is required');
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'email');
        await assertAccessible(page, 'doctor login with errors');
        await screenshot(page, 'doctor-login-errors');

        await email.fill('not-an-email');
        await page.getByLabel('Password', { exact: true }).fill('abc');
        await loginButton(page).click();
        await fieldError(page, 'Invalid email format').waitFor();
        // Doctors' sign-in has no minimum length (spec §9).
        assert.equal(await page.locator('.field-error').count(), 1);

        // Corrected while typing once a submit has shown errors.
        await email.fill('doctor@example.com');
        await fieldError(page, 'Invalid email format').waitFor({ state: 'detached' });
        assert.equal(await storage(page, 'token'), null);
    });

    it('checks the hospital and admin forms, with their 8-character minimum', async () => {
        for (const [route, title, register] of [
            ['/hospital-login', 'Hospital Login', '/hospital-register'],
            ['/admin-login', 'Admin Login', '/admin-register'],
        ]) {
            await page.goto(url(route));
            await heading(page, title).waitFor();
            assert.equal(await page.locator(`a[href="${register}"]`).count(), 1);
            assert.equal(await page.getByRole('link', { name: 'Back to role selection' }).getAttribute('href'), '/');

            await loginButton(page).click();
            await fieldError(page, 'Email is required').waitFor();
            await fieldError(page, 'Password is required').waitFor();
            assert.equal(await page.getByTestId('toast').count(), 0);

            await page.getByLabel('Email', { exact: true }).fill('someone@nowhere');
            await page.getByLabel('Password', { exact: true }).fill('short');
            await loginButton(page).click();
            await fieldError(page, 'Invalid email format').waitFor();
            await fieldError(page, 'Password must be at least 8 characters long').waitFor();
        }
    });

    it('shows the server refusal once, inline (no toast repeating it)', async () => {
        await page.goto(url('/doctor-login'));
        await signInWithForm(page, { email: FIXTURES.radiologist.email, password: 'not-the-password' });
        const inline = page.getByTestId('login-error');
        await inline.waitFor();
        assert.equal((await inline.textContent()).trim(), 'Invalid email or password');
        assert.equal(await toast(page, 'Invalid email or password').count(), 0);
        assert.equal(new URL(page.url()).pathname, '/doctor-login');
        assert.equal(await storage(page, 'token'), null);
        // A real account signing in under another role is refused the same way.
        await page.goto(url('/doctor-login'));
        await signInWithForm(page, FIXTURES.hospital);
        await page.getByTestId('login-error').filter({ hasText: 'Invalid email or password' }).waitFor();
        assert.equal(await storage(page, 'token'), null);
        await screenshot(page, 'doctor-login-refused');
    });

    it('signs a doctor in to their specialty page and remembers the email when asked', async () => {
        await page.goto(url('/doctor-login'));
        await signInWithForm(page, { ...FIXTURES.radiologist, remember: true });
        await waitForPath(page, '/radiologist');
        await toast(page, 'Login successful!').waitFor();
        await heading(page, 'Radiology Assistant').waitFor();
        // No credential where page script can read it: the access token is in memory, the
        // refresh token an HttpOnly cookie.
        const stored = await page.evaluate(() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)]));
        assert.equal(await storage(page, 'token'), null);
        assert.ok(!/eyJ[\w-]+\.[\w-]+\./.test(stored), 'no token in localStorage or sessionStorage');
        assert.equal(await page.evaluate(() => document.cookie.includes('cara_session')), false);
        const cookie = (await page.context().cookies()).find(c => c.name === 'cara_session');
        assert.ok(cookie, 'refresh cookie set');
        assert.equal(cookie.httpOnly, true);
        assert.equal(cookie.sameSite, 'Strict');
        assert.equal(cookie.path, '/api/auth/refresh');

        // A reload keeps the session (restored from the cookie), and so does a new tab.
        await page.reload();
        await heading(page, 'Radiology Assistant').waitFor();
        assert.equal(new URL(page.url()).pathname, '/radiologist');
        const tab = await page.context().newPage();
        await tab.goto(url('/radiologist'));
        await heading(tab, 'Radiology Assistant').waitFor();
        assert.equal(new URL(tab.url()).pathname, '/radiologist');
        await tab.close();

        // Signed in already: the login page goes straight to the dashboard.
        await page.goto(url('/doctor-login'));
        await waitForPath(page, '/radiologist');

        // Next visit, signed out: the address is filled in, the password is not.
        await page.context().clearCookies();
        await page.goto(url('/doctor-login'));
        await heading(page, 'Doctor Login').waitFor();
        assert.equal(await page.getByLabel('Email', { exact: true }).inputValue(), FIXTURES.radiologist.email);
        assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '');
        assert.equal(await page.getByLabel('Remember me').isChecked(), true);

        // Unticked at the next sign-in, the address is forgotten.
        await page.getByLabel('Remember me').uncheck();
        await page.getByLabel('Password', { exact: true }).fill(FIXTURES.radiologist.password);
        await loginButton(page).click();
        await waitForPath(page, '/radiologist');
        await page.context().clearCookies();
        await page.goto(url('/doctor-login'));
        await heading(page, 'Doctor Login').waitFor();
        assert.equal(await page.getByLabel('Email', { exact: true }).inputValue(), '');
    });

    it('signs a trialing radiotherapist in to /radiotherapist', async () => {
        await page.goto(url('/doctor-login'));
        await signInWithForm(page, FIXTURES.radiotherapist);
        await waitForPath(page, '/radiotherapist');
        await heading(page, 'Radiotherapy Assistant').waitFor();
    });

    it('signs a hospital in to /dashboard', async () => {
        await page.goto(url('/hospital-login'));
        await signInWithForm(page, FIXTURES.hospital);
        await waitForPath(page, '/dashboard');
        await toast(page, 'Welcome back, Hospital!').waitFor();
        await heading(page, 'Hospital Dashboard').waitFor();
        assert.ok((await page.context().cookies()).some(c => c.name === 'cara_session'));
    });

    it('signs an admin in to /admin-dashboard, which hands over to the console at /admin/', async () => {
        const visited = [];
        const record = frame => {
            if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
        };
        page.on('framenavigated', record);
        try {
            await page.goto(url('/admin-login'));
            await signInWithForm(page, FIXTURES.admin);
            await page.waitForURL(current => new URL(current).pathname.startsWith('/admin/'), { timeout: TIMEOUT });
        } finally {
            page.off('framenavigated', record);
        }
        assert.ok(visited.includes('/admin-dashboard'), `went through /admin-dashboard: ${visited.join(' → ')}`);
        // The console restores the session from its own cookie, apart from the clinician app's.
        const names = (await page.context().cookies()).map(c => c.name);
        assert.ok(names.includes('cara_admin_session'), names.join(', '));
        assert.equal(await storage(page, 'token'), null);
    });

    it('is translated, right to left in Arabic', async () => {
        await page.goto(url('/doctor-login'));
        await heading(page, 'Doctor Login').waitFor();
        await page.getByTestId('language-select').selectOption('ar');
        await heading(page, 'تسجيل دخول الأطباء').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await page.getByRole('button', { name: 'تسجيل الدخول', exact: true }).click();
        await fieldError(page, 'البريد الإلكتروني مطلوب').waitFor();
        await assertAccessible(page, 'doctor login (ar)');
        await screenshot(page, 'doctor-login-ar');

        // Messages already on screen follow a language change.
        await page.getByTestId('language-select').selectOption('fr');
        await fieldError(page, "L'adresse e-mail est obligatoire").waitFor();
        await page.goto(url('/'));
        await heading(page, 'Bienvenue sur Cara').waitFor();
        await page.getByRole('radio', { name: 'Médecin' }).waitFor();
    });
});

describe('password reset', () => {
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

    it('emails a single-use link; the new password works and the old one does not', async () => {
        const account = FIXTURES.unsubscribedDoctor;
        const newPassword = 'fresh-Password-42';

        await page.goto(url('/doctor-login'));
        await page.getByRole('link', { name: 'Forgot password?' }).click();
        await waitForPath(page, '/forgot-password');
        await heading(page, 'Forgot Password').waitFor();
        await assertAccessible(page, 'forgot password');
        await screenshot(page, 'forgot-password');

        const send = page.getByRole('button', { name: 'Send reset link' });
        await send.click();
        await fieldError(page, 'Email is required').waitFor();
        await page.getByLabel('Email', { exact: true }).fill('nobody');
        await send.click();
        await fieldError(page, 'Invalid email format').waitFor();

        // An unknown address gets the very same answer as a known one.
        await page.getByLabel('Email', { exact: true }).fill('nobody-here@example.com');
        await send.click();
        const answer = 'If an account exists for this email, a password reset link has been sent.';
        await heading(page, 'Check your email').waitFor();
        assert.equal((await page.getByTestId('reset-requested').textContent()).trim(), answer);
        await page.getByRole('button', { name: 'Send another link' }).click();

        await page.getByLabel('Email', { exact: true }).fill(account.email);
        await send.click();
        await heading(page, 'Check your email').waitFor();
        assert.equal((await page.getByTestId('reset-requested').textContent()).trim(), answer);
        assert.equal(await page.getByRole('link', { name: 'Back to login' }).getAttribute('href'), '/login');
        await assertAccessible(page, 'reset requested');
        await screenshot(page, 'forgot-password-sent');

        const mail = await waitForMail(account.email);
        assert.match(mail, /Subject: Reset your Cara password/);
        const link = mailBody(mail).match(/https?:\/\/\S+\/forgot-password\?token=[\w-]+/)?.[0];
        assert.ok(link, `no reset link in the mail:\n${mail}`);
        assert.ok(link.startsWith(url('/forgot-password?token=')), link);

        await page.goto(link);
        await heading(page, 'Reset Password').waitFor();
        await assertAccessible(page, 'reset password');
        const reset = page.getByRole('button', { name: 'Reset password' });
        const password = page.getByLabel('New password', { exact: true });
        const confirm = page.getByLabel('Confirm new password', { exact: true });
        await reset.click();
        await fieldError(page, 'Password is required').waitFor();
        await fieldError(page, 'Please confirm your password').waitFor();
        await password.fill('short');
        await confirm.fill('short');
        await reset.click();
        await fieldError(page, 'Password must be at least 8 characters').waitFor();
        await password.fill(newPassword);
        await confirm.fill(`${newPassword}!`);
        await reset.click();
        await fieldError(page, 'Passwords do not match').waitFor();
        await screenshot(page, 'reset-password-errors');
        await confirm.fill(newPassword);
        await reset.click();

        await heading(page, 'Password reset').waitFor();
        const done = 'Your password has been reset. Please log in.';
        assert.equal((await page.getByTestId('reset-done').textContent()).trim(), done);
        await toast(page, done).waitFor();
        await screenshot(page, 'reset-password-done');
        await page.getByRole('link', { name: 'Go to login' }).click();
        await waitForPath(page, '/login');

        // The new password signs in (this doctor has no subscription: the gate sends them to the plans).
        await page.goto(url('/doctor-login'));
        await signInWithForm(page, { email: account.email, password: newPassword });
        await waitForPath(page, '/doctor-subscription');
        assert.ok((await page.context().cookies()).some(c => c.name === 'cara_session'));

        const old = await apiPost('/api/auth/login', { email: account.email, password: account.password, role: 'doctor' });
        assert.equal(old.status, 401);
        assert.equal(old.body.message, 'Invalid email or password');

        // The link worked once; a second use is refused with a way to ask again.
        await page.context().clearCookies();
        await page.evaluate(() => localStorage.clear());
        await page.goto(link);
        await heading(page, 'Reset Password').waitFor();
        await password.fill('another-Password-7');
        await confirm.fill('another-Password-7');
        await reset.click();
        await heading(page, 'Reset link not valid').waitFor();
        await page
            .getByText('This password reset link is invalid or has expired. Please request a new one.')
            .waitFor();
        await assertAccessible(page, 'reset link refused');
        await page.getByRole('link', { name: 'Request a new link' }).click();
        await waitForPath(page, '/forgot-password');
        await heading(page, 'Forgot Password').waitFor();
        const still = await apiPost('/api/auth/login', { email: account.email, password: newPassword, role: 'doctor' });
        assert.equal(still.status, 200);
    });
});
