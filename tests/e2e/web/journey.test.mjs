// One hospital's whole story, through the screens only: it registers, signs
// in, pays for a plan on the Stripe double's checkout page, adds a doctor from
// its dashboard; the doctor signs in and edits their profile; the hospital
// deactivates them and the doctor's open session and next sign-in are refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { assertAccessible, followSignupLink, openBrowser, screenshot, uniqueEmail, url, waitForPath } from './lib.mjs';

const heading = (page, name) => page.getByRole('heading', { level: 1, name });
const button = (scope, name) => scope.getByRole('button', { name, exact: true });
const field = (scope, label) => scope.getByLabel(label, { exact: true });
const toast = (page, text) => page.getByTestId('toast').filter({ hasText: text });

const stamp = Date.now();
const hospital = { name: `Cape Coast Teaching Hospital ${stamp}`, email: uniqueEmail('cape-coast'), password: 'cape-coast-pass' };
const doctor = { name: `Esi Quaye ${stamp}`, email: uniqueEmail('esi-quaye'), password: 'esi-secret' };

const login = async (page, route, account) => {
    await page.goto(url(route));
    await field(page, 'Email').fill(account.email);
    await field(page, 'Password').fill(account.password);
    await button(page, 'Login').click();
};

describe('a hospital and its doctor, end to end', () => {
    let hospitalBrowser;
    let doctorBrowser;

    before(async () => {
        hospitalBrowser = await openBrowser();
        doctorBrowser = await openBrowser();
    });
    after(async () => {
        assert.deepEqual(hospitalBrowser.pageErrors, [], 'no uncaught errors (hospital)');
        assert.deepEqual(doctorBrowser.pageErrors, [], 'no uncaught errors (doctor)');
        await hospitalBrowser.close();
        await doctorBrowser.close();
    });

    it('registers, pays for a plan and adds a doctor', async () => {
        const page = hospitalBrowser.page;
        await page.goto(url('/hospital-register'));
        await heading(page, 'Hospital Registration').waitFor();
        await field(page, 'Hospital Name').fill(hospital.name);
        await field(page, 'Registration Number').fill(`CCTH-${stamp}`);
        await field(page, 'Capacity (beds)').fill('400');
        await field(page, 'Email').fill(hospital.email);
        await field(page, 'Phone Number').fill('0332132000');
        await field(page, 'Password').fill(hospital.password);
        await field(page, 'Confirm Password').fill(hospital.password);
        await field(page, 'Address').fill('Interberton Road, Cape Coast');
        await field(page, 'Country').selectOption('Ghana');
        await field(page, 'State/Province').fill('Central');
        await page.getByLabel(/I have read and accept the Privacy Policy/).check();
        await button(page, 'Register').click();
        // The account is made by the link mailed to the hospital's address.
        await page.getByTestId('signup-link-sent').waitFor();
        await followSignupLink(page, hospital.email);
        await waitForPath(page, '/hospital-login');

        await login(page, '/hospital-login', hospital);
        await waitForPath(page, '/dashboard');
        await page.getByText(hospital.name).first().waitFor();
        await page.getByText('No Plan').first().waitFor();
        await page.getByText('No doctors have been added yet.').waitFor();

        // No plan yet: the plan page, Bronze, the double's checkout with the test card.
        await page.getByRole('link', { name: 'Manage Subscription' }).click();
        await waitForPath(page, '/subscription');
        await button(page, 'Choose a Plan').click();
        const plans = page.getByRole('dialog', { name: 'Choose Your Subscription Plan' });
        const bronze = plans
            .getByTestId('plan-card')
            .filter({ has: page.getByRole('heading', { level: 3, name: 'Bronze', exact: true }) });
        await button(bronze, 'Select Plan').click();
        await button(page.getByRole('dialog', { name: 'Confirm Subscription Change' }), 'Proceed to Payment').click();
        await page.waitForURL(current => new URL(current).pathname.startsWith('/checkout/'));
        await page.getByLabel('Card number').fill('4242 4242 4242 4242');
        await page.getByRole('button', { name: 'Pay and subscribe' }).click();
        await heading(page, 'Subscription Activated!').waitFor({ timeout: 30_000 });
        await button(page, 'Go to Dashboard').click();
        await waitForPath(page, '/dashboard');

        // The plan now allows doctors: add one from the dashboard.
        const add = page.getByTestId('add-doctor');
        await page.waitForFunction(() =>
            document.querySelector('[role="tooltip"]')?.textContent?.includes('Add a new doctor to your hospital'),
        );
        await add.click();
        const dialog = page.getByRole('dialog', { name: 'Add New Doctor' });
        await dialog.getByLabel('Name', { exact: true }).fill(doctor.name);
        await field(dialog, 'Email').fill(doctor.email);
        await dialog.getByLabel('Phone Number').fill('0244556677');
        await dialog.getByLabel('Specialty').selectOption('Cardiologist');
        await dialog.getByLabel('License Number').fill(`MDC-${stamp}`);
        await dialog.getByLabel('Experience (years)').fill('6');
        await field(dialog, 'Password').fill(doctor.password);
        await dialog.getByLabel('Country').fill('Ghana');
        await dialog.getByLabel('State').fill('Central');
        await button(dialog, 'Add Doctor').click();
        await toast(page, `Doctor ${doctor.name} added successfully!`).waitFor();
        await page.getByTestId('doctor-row').filter({ hasText: doctor.name }).waitFor();
        await screenshot(page, 'journey-hospital-dashboard');
    });

    it('lets the new doctor sign in and edit their profile', async () => {
        const page = doctorBrowser.page;
        await login(page, '/doctor-login', doctor);
        // The hospital's plan opens the doctor's console.
        await waitForPath(page, '/cardiologist');

        await page.goto(url('/profile'));
        await button(page, 'Edit Profile').click();
        await field(page, 'Years of Experience').fill('8');
        await field(page, 'Phone Number').fill('+233 24 455 6677');
        await button(page, 'Save Changes').click();
        await toast(page, 'Profile updated successfully').waitFor();
        await button(page, 'Edit Profile').waitFor();
        assert.equal(await field(page, 'Years of Experience').inputValue(), '8');
        await assertAccessible(page, 'journey: doctor profile');
    });

    it("shows the doctor's edit to the hospital, which deactivates them", async () => {
        const page = hospitalBrowser.page;
        await page.goto(url('/manage'));
        const row = page.getByTestId('doctor-row').filter({ hasText: doctor.name });
        await row.getByText('8 years').waitFor();
        await button(page, `Deactivate ${doctor.name}`).click();
        await toast(page, 'Doctor status updated successfully!').waitFor();
        await row.getByText('Inactive', { exact: true }).waitFor();
    });

    it('refuses the deactivated doctor', async () => {
        const page = doctorBrowser.page;
        // The open session: the next load's session check is refused and the session cleared.
        await page.goto(url('/profile'));
        await waitForPath(page, '/');
        assert.equal(await page.evaluate(() => localStorage.getItem('token')), null);

        await login(page, '/doctor-login', doctor);
        await page
            .getByRole('alert')
            .filter({ hasText: 'Your account has been deactivated. Please contact your administrator.' })
            .first()
            .waitFor();
        assert.equal(new URL(page.url()).pathname, '/doctor-login');
        await screenshot(page, 'journey-doctor-refused');
    });
});
