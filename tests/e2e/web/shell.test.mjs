// The app shell in Chromium: session restore and 401 handling, route guards
// and the subscription gate, navbar rules, languages (Arabic right to left),
// the remembered theme, and an accessibility scan of a signed-in screen.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';

import {
    apiPost,
    assertAccessible,
    FIXTURES,
    openBrowser,
    screenshot,
    signInAs,
    TIMEOUT,
    url,
    waitForPath,
} from './lib.mjs';

const heading = (page, name) => page.getByRole('heading', { level: 1, name });
const storage = (page, key) => page.evaluate(k => localStorage.getItem(k), key);

describe('web app shell', () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    afterEach(async () => {
        // Each case starts signed out with default preferences.
        await page.context().clearCookies();
        await page.goto(url('/privacy-policy'));
        await page.evaluate(() => localStorage.clear());
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('sends visitors without a session from protected pages to role selection', async () => {
        for (const route of ['/profile', '/radiologist', '/dashboard', '/subscription']) {
            await page.goto(url(route));
            await waitForPath(page, '/');
        }
    });

    it('restores the session on load and drops a token the server refuses', async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        await page.reload();
        await heading(page, 'Profile').waitFor();
        await page.getByTestId('profile-menu').waitFor();

        // A refresh cookie the server refuses (forged, or its session ended).
        await page.context().clearCookies();
        await page
            .context()
            .addCookies([{ name: 'cara_session', value: 'not-a-real-token', domain: new URL(url('/')).hostname, path: '/api/auth/refresh' }]);
        await page.reload();
        await waitForPath(page, '/');
        assert.equal(await storage(page, 'token'), null);
        assert.equal(await storage(page, 'user'), null);
    });

    it('a 401 from any API call clears the session and goes to /login', async () => {
        const session = await signInAs(page, FIXTURES.radiologist, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        // The token is revoked elsewhere (e.g. logout in another tab).
        const revoked = await apiPost('/api/auth/logout', {}, session.token);
        assert.equal(revoked.status, 200);
        // Client-side navigation to a gated page makes an API call with the dead token.
        await page.getByRole('link', { name: 'Dashboard' }).click();
        await waitForPath(page, '/login');
        assert.equal(await storage(page, 'token'), null);
        await page.getByRole('button', { name: /next/i }).waitFor();
    });

    it('gates clinical pages on the subscription', async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/radiologist');
        await heading(page, 'Radiology Assistant').waitFor();

        await signInAs(page, FIXTURES.radiotherapist, 'doctor', '/radiotherapist-chat');
        await heading(page, 'Radiotherapy Chat Assistant').waitFor(); // trialing counts

        await signInAs(page, FIXTURES.unsubscribedDoctor, 'doctor', '/general-practitioner');
        await waitForPath(page, '/doctor-subscription');

        await signInAs(page, FIXTURES.hospitalDoctor, 'doctor', '/cardiologist');
        await page.getByText('Facility Subscription Inactive').waitFor();
        await page.getByText(/hospital's subscription is not active/).waitFor();
        await screenshot(page, 'facility-inactive');
    });

    it('keeps roles to their pages', async () => {
        await signInAs(page, FIXTURES.hospital, 'hospital', '/radiologist');
        await page.getByText('Access Restricted').waitFor();
        await page.getByText('You do not have permission to access this page.').waitFor();
        await screenshot(page, 'access-restricted');

        await page.goto(url('/doctor-subscription'));
        await waitForPath(page, '/');

        await signInAs(page, FIXTURES.admin, 'admin', '/admin-dashboard');
        await page.waitForURL(current => new URL(current).pathname.startsWith('/admin/'), { timeout: TIMEOUT });
    });

    it('shows navbar links by role and specialty', async () => {
        const links = async () =>
            page
                .locator('.nav-links a')
                .evaluateAll(found => found.map(a => `${a.textContent.trim()} ${new URL(a.href).pathname}`));

        // A doctor: their console, the general assistant, the chat for radiotherapists, then the
        // record, the dashboard, the plans and the profile.
        await signInAs(page, FIXTURES.radiotherapist, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        assert.deepEqual(await links(), [
            'My console /radiotherapist',
            'General assistant /assistant',
            'Chat /radiotherapist-chat',
            'Consultations /consultations',
            'Dashboard /doctor-dashboard',
            'Subscription /doctor-subscription',
            'Profile /profile',
        ]);
        assert.equal(await page.locator('.nav-links a[aria-current="page"]').textContent(), 'Profile');
        assert.equal(await page.locator('a.brand').getAttribute('href'), '/radiotherapist');
        await page.getByTestId('profile-menu').click();
        await page.getByText('DOCTOR', { exact: true }).waitFor();
        await screenshot(page, 'navbar-menu');

        await signInAs(page, FIXTURES.radiologist, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        assert.deepEqual(await links(), [
            'My console /radiologist',
            'General assistant /assistant',
            'Consultations /consultations',
            'Dashboard /doctor-dashboard',
            'Subscription /doctor-subscription',
            'Profile /profile',
        ]);
        await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
        await waitForPath(page, '/doctor-dashboard');

        // A hospital: its dashboard, its doctors, their signed notes, its audit log, its plan.
        await signInAs(page, FIXTURES.hospital, 'hospital', '/profile');
        await heading(page, 'Profile').waitFor();
        assert.deepEqual(await links(), [
            'Dashboard /dashboard',
            'Doctors /manage',
            'Signed notes /signed-notes',
            'Security /security',
            'Subscription /subscription',
            'Profile /profile',
        ]);
        assert.equal(await page.locator('a.brand').getAttribute('href'), '/dashboard');
        // Initials of up to two name words.
        assert.equal((await page.locator('.avatar-initials').textContent()).trim(), 'KB');
        await page.getByRole('link', { name: 'Doctors', exact: true }).click();
        await heading(page, 'Manage Doctors').waitFor();
        await page.getByRole('link', { name: 'Signed notes', exact: true }).click();
        await heading(page, 'Signed notes').waitFor();
        await page.getByTestId('signed-notes-empty').filter({ hasText: 'Your doctors have no signed notes yet.' }).waitFor();
    });

    it('gives a doctor without a subscription the reduced menu, and logs out', async () => {
        await signInAs(page, FIXTURES.unsubscribedDoctor, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        await page.getByTestId('profile-menu').click();
        const items = (await page.getByRole('menuitem').allTextContents()).map(text => text.trim());
        assert.deepEqual(items, ['Logout']);
        assert.equal(await page.getByText('DOCTOR', { exact: true }).count(), 0);

        await page.getByRole('menuitem', { name: 'Logout' }).click();
        await waitForPath(page, '/');
        await page.getByText('Logged out successfully').waitFor();
        assert.equal(await storage(page, 'token'), null);
    });

    it('remembers the theme across reloads', async () => {
        await page.goto(url('/privacy-policy'));
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
        await page.getByTestId('theme-toggle').click();
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
        await page.reload();
        await page.getByTestId('theme-toggle').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
        assert.equal(await storage(page, 'theme'), 'dark');
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
        await assertAccessible(page, 'profile (dark)');
        await screenshot(page, 'profile-dark');
    });

    it('remembers a chosen language over the browser language', async () => {
        await page.goto(url('/privacy-policy'));
        await page.getByTestId('language-select').selectOption('fr');
        await page.waitForFunction(() => document.documentElement.lang === 'fr');
        await page.reload();
        await page.waitForFunction(() => document.documentElement.lang === 'fr');
        assert.equal(await storage(page, 'locale'), 'fr');
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/profile');
        await page.getByRole('link', { name: 'Tableau de bord' }).waitFor();
    });

    it('is accessible when signed in (light theme)', async () => {
        await signInAs(page, FIXTURES.hospital, 'hospital', '/profile');
        await heading(page, 'Profile').waitFor();
        await assertAccessible(page, 'profile (light)');
        await screenshot(page, 'profile');
    });
});

describe('Arabic browser', () => {
    let browser;
    before(async () => {
        browser = await openBrowser({ locale: 'ar' });
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('renders right to left from the browser language', async () => {
        const { page } = browser;
        await page.goto(url('/'));
        await page.waitForFunction(() => document.documentElement.dir === 'rtl');
        assert.equal(await page.evaluate(() => document.documentElement.lang), 'ar');
        await screenshot(page, 'role-selection-ar');

        await signInAs(page, FIXTURES.radiologist, 'doctor', '/profile');
        await page.getByRole('link', { name: 'لوحة التحكم' }).waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await assertAccessible(page, 'profile (ar)');
        await screenshot(page, 'profile-ar');
    });
});
