// Hospital screens in Chromium against the real API: the hospital dashboard
// (/dashboard: stats, plan, doctor table, the quick add with its §5 rules and
// the plan's doctor limit) and Manage Doctors (/manage: edit, deactivate and
// reactivate, add with the §5 rules, delete with confirmation, the hand-over
// to the full registration form), a hospital without a plan sent to
// /subscription, and the notices other roles get. Axe scans in light, dark
// and Arabic (right-to-left).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
    apiPost,
    assertAccessible,
    FIXTURES,
    openBrowser,
    screenshot,
    signInAs,
    uniqueEmail,
    url,
    waitForPath,
} from './lib.mjs';

const heading = (scope, name, level = 1) => scope.getByRole('heading', { level, name });
const button = (scope, name) => scope.getByRole('button', { name, exact: true });
const toast = (page, text) => page.getByTestId('toast').filter({ hasText: text });
const row = (page, name) => page.getByTestId('doctor-row').filter({ hasText: name });
/** The element describing a control (aria-describedby): a field's error, a button's tooltip. */
const description = async control => {
    const id = await control.getAttribute('aria-describedby');
    assert.ok(id, 'the control points to its description');
    return control.page().locator(`[id="${id}"]`);
};
const describedError = async field => ((await (await description(field)).textContent()) ?? '').trim();
/** The Add Doctor tooltip (hidden until hover or focus, so not found by role). */
const tooltipText = async add => ((await (await description(add)).textContent()) ?? '').trim();
/** Until entrance animations end: axe measures contrast through a fading-in dialog's opacity. */
const settled = page =>
    page.evaluate(() => Promise.all(document.getAnimations().map(animation => animation.finished)));
/** The dashboard's Add Doctor button once the limit check has answered. */
const addDoctorReady = async page => {
    const add = page.getByTestId('add-doctor');
    await add.waitFor();
    await page.waitForFunction(
        () => !document.querySelector('[role="tooltip"]')?.textContent?.includes('Checking limit...'),
    );
    return add;
};

/** Manage Doctors' Add New Doctor once the limit check has answered. */
const manageAddReady = async page => {
    const add = page.getByTestId('manage-add-doctor');
    await add.waitFor();
    const tip = await description(add);
    await page.waitForFunction(id => !document.getElementById(id)?.textContent?.includes('Checking limit...'), await add.getAttribute('aria-describedby'));
    assert.equal(await tip.getAttribute('role'), 'tooltip');
    return add;
};
const NO_PLAN = 'An active subscription is required to add doctors. Please choose a plan.';
const LIMIT_REACHED = 'Doctor limit reached for your current plan. Upgrade to add more.';

const hospital = FIXTURES.managingHospital;
const managed = FIXTURES.managedDoctor;
const stamp = Date.now();
// The doctor the dashboard adds; /manage deactivates and reactivates them.
const dashDoctor = {
    name: `Abena Owusu ${stamp}`,
    email: uniqueEmail('dash-doctor'),
    password: 'abena-pass',
};
// The doctor /manage adds, then deletes.
const manageDoctor = {
    name: `Yaa Asantewaa ${stamp}`,
    email: uniqueEmail('manage-doctor'),
    password: 'yaa-password',
};

describe('hospital dashboard and doctor management', () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'no uncaught errors in the page');
        await browser.close();
    });

    it('shows the hospital dashboard and adds a doctor through its dialog', async () => {
        await signInAs(page, hospital, 'hospital', '/dashboard');
        await heading(page, 'Hospital Dashboard').waitFor();
        assert.equal((await page.getByTestId('welcome').textContent()).trim(), `Welcome, ${hospital.name}`);
        await page.getByTestId('total-doctors').waitFor();
        assert.equal((await page.getByTestId('total-doctors').textContent()).trim(), '1');
        assert.equal((await page.getByTestId('active-doctors').textContent()).trim(), 'Active: 1');
        assert.equal((await page.getByTestId('plan-name').textContent()).trim(), 'Bronze');
        assert.equal((await page.getByTestId('plan-status').textContent()).trim(), 'Active');
        assert.equal(await page.getByTestId('current-plan').getAttribute('href'), '/subscription');
        assert.equal(await page.getByRole('link', { name: 'Manage Subscription' }).getAttribute('href'), '/subscription');
        const first = row(page, managed.name);
        await first.getByText('Radiologist').waitFor();
        await first.getByText(managed.email).waitFor();
        await first.getByText('Active', { exact: true }).waitFor();
        for (const column of ['Name', 'Specialty', 'Email', 'Status']) {
            await page.getByRole('columnheader', { name: column, exact: true }).waitFor();
        }

        // Bronze allows 5: the button is enabled and says what it does.
        const add = await addDoctorReady(page);
        assert.equal(await add.getAttribute('aria-disabled'), null);
        assert.equal(await tooltipText(add), 'Add a new doctor to your hospital');
        assert.equal(await (await description(add)).getAttribute('role'), 'tooltip');
        await add.click();
        const dialog = page.getByRole('dialog', { name: 'Add New Doctor' });
        await dialog.waitFor();
        assert.equal(await dialog.getByLabel('Experience (years)').inputValue(), '1', 'experience defaults to 1');
        assert.equal(await dialog.getByLabel('Specialty').inputValue(), '', "specialty starts at 'Select Specialty'");
        await dialog.getByRole('option', { name: 'Select Specialty' }).waitFor({ state: 'attached' });

        // Empty submit: every §5 message of the dashboard form, each tied to its field.
        await button(dialog, 'Add Doctor').click();
        for (const message of [
            'Name is required',
            'Email is required',
            'Phone number is required',
            'Specialty is required',
            'License number is required',
            'Password is required',
            'Country is required',
            'State is required',
        ]) {
            await dialog.getByText(message, { exact: true }).waitFor();
        }
        const nameField = dialog.getByLabel('Name', { exact: true });
        assert.equal(await nameField.getAttribute('aria-invalid'), 'true');
        assert.equal(await describedError(nameField), 'Name is required');
        assert.ok(await nameField.evaluate(node => node === document.activeElement), 'focus on the first error');

        await dialog.getByLabel('Email', { exact: true }).fill('not-an-email');
        await dialog.getByLabel('Password', { exact: true }).fill('12345');
        await dialog.getByLabel('Experience (years)').fill('0');
        await dialog.getByText('Email is invalid', { exact: true }).waitFor();
        await dialog.getByText('Password must be at least 6 characters', { exact: true }).waitFor();
        await dialog.getByText('Experience must be greater than 0', { exact: true }).waitFor();
        await settled(page);
        await screenshot(page, 'hospital-dashboard-add-errors');
        await assertAccessible(page, 'dashboard add dialog with errors');

        // Valid data but a taken email: the server's 409 shows under the email field.
        await nameField.fill(dashDoctor.name);
        await dialog.getByLabel('Email', { exact: true }).fill(managed.email);
        await dialog.getByLabel('Phone Number').fill('0241234567');
        await dialog.getByLabel('Specialty').selectOption('Cardiologist');
        await dialog.getByLabel('License Number').fill(`GMC-D-${stamp}`);
        await dialog.getByLabel('Experience (years)').fill('7');
        await dialog.getByLabel('Password', { exact: true }).fill(dashDoctor.password);
        await dialog.getByLabel('Country').fill('Ghana');
        await dialog.getByLabel('State').fill('Ashanti');
        await button(dialog, 'Add Doctor').click();
        await toast(page, 'Error adding doctor: An account with this email already exists.').waitFor();
        const emailField = dialog.getByLabel('Email', { exact: true });
        await page.waitForFunction(
            () => document.activeElement?.getAttribute('aria-invalid') === 'true',
        );
        assert.equal(await describedError(emailField), 'An account with this email already exists.');
        assert.equal(page.url(), url('/dashboard'), 'a taken email is not a subscription problem');

        await emailField.fill(dashDoctor.email);
        await button(dialog, 'Add Doctor').click();
        await toast(page, `Doctor ${dashDoctor.name} added successfully!`).waitFor();
        await dialog.waitFor({ state: 'detached' });
        assert.equal((await page.getByTestId('total-doctors').textContent()).trim(), '2');
        assert.equal((await page.getByTestId('active-doctors').textContent()).trim(), 'Active: 2');
        await row(page, dashDoctor.name).getByText('Cardiologist').waitFor();
        await addDoctorReady(page);
        assert.equal(await page.getByTestId('add-doctor').getAttribute('aria-disabled'), null, '2 of 5: still room');

        await assertAccessible(page, 'hospital dashboard');
        await screenshot(page, 'hospital-dashboard');
    });

    it('edits, deactivates, reactivates and lists doctors on /manage', async () => {
        await page.goto(url('/manage'));
        await heading(page, 'Manage Doctors').waitFor();
        await row(page, managed.name).waitFor();
        await row(page, dashDoctor.name).waitFor();
        assert.equal(await page.getByTestId('doctor-row').count(), 2);
        for (const column of ['Name', 'Specialty', 'Experience', 'License Number', 'Status', 'Actions']) {
            await page.getByRole('columnheader', { name: column, exact: true }).waitFor();
        }
        await row(page, dashDoctor.name).getByText('7 years', { exact: true }).waitFor();
        await row(page, dashDoctor.name).getByText(`GMC-D-${stamp}`).waitFor();

        // Edit: the form is filled in, has no password, and saves only what changed.
        await button(page, `Edit ${managed.name}`).click();
        const edit = page.getByRole('dialog', { name: 'Edit Doctor' });
        await edit.waitFor();
        assert.equal(await edit.getByLabel('Full Name').inputValue(), managed.name);
        assert.equal(await edit.getByLabel('Specialty').inputValue(), 'Radiologist');
        assert.equal(await edit.getByLabel('Password', { exact: true }).count(), 0, 'no password when editing');
        await edit.getByLabel('Experience (years)').fill('12');
        await button(edit, 'Save Changes').click();
        await edit.waitFor({ state: 'detached' });
        await toast(page, `Doctor ${managed.name} updated successfully!`).waitFor();
        await row(page, managed.name).getByText('12 years', { exact: true }).waitFor();

        // Deactivate: badge, toast, and the doctor can no longer sign in.
        const target = row(page, dashDoctor.name);
        await button(page, `Deactivate ${dashDoctor.name}`).click();
        await toast(page, 'Doctor status updated successfully!').waitFor();
        await target.getByText('Inactive', { exact: true }).waitFor();
        await button(page, `Activate ${dashDoctor.name}`).waitFor();
        await assertAccessible(page, 'manage doctors (light)');
        await screenshot(page, 'manage-doctors');

        const other = await openBrowser();
        try {
            await other.page.goto(url('/doctor-login'));
            await other.page.getByLabel('Email', { exact: true }).fill(dashDoctor.email);
            await other.page.getByLabel('Password', { exact: true }).fill(dashDoctor.password);
            await other.page.getByRole('button', { name: 'Login', exact: true }).click();
            await other.page
                .getByRole('alert')
                .filter({ hasText: 'Your account has been deactivated. Please contact your administrator.' })
                .first()
                .waitFor();
            assert.equal(new URL(other.page.url()).pathname, '/doctor-login', 'stays on the login page');
            assert.equal(await other.page.evaluate(() => localStorage.getItem('token')), null);
        } finally {
            await other.close();
        }

        // The deactivation's toast (same text) may still be up: let it go first.
        await toast(page, 'Doctor status updated successfully!').first().waitFor({ state: 'detached', timeout: 15_000 });
        await button(page, `Activate ${dashDoctor.name}`).click();
        await toast(page, 'Doctor status updated successfully!').waitFor();
        await target.getByText('Active', { exact: true }).waitFor();
        await button(page, `Deactivate ${dashDoctor.name}`).waitFor();
        const login = await apiPost('/api/auth/login', {
            email: dashDoctor.email,
            password: dashDoctor.password,
            role: 'doctor',
        });
        assert.equal(login.status, 200, 'reactivated doctor signs in again');

        // Search and filters run on the server, a page at a time.
        const search = page.getByTestId('doctors-search');
        await search.fill(managed.name);
        await row(page, dashDoctor.name).waitFor({ state: 'detached' });
        assert.equal(await page.getByTestId('doctor-row').count(), 1);
        await search.fill('no-such-doctor-here');
        await page.getByTestId('doctors-none-match').waitFor();
        await search.fill('');
        await page.getByTestId('doctors-status').selectOption('inactive');
        await page.getByTestId('doctors-none-match').waitFor();
        await page.getByTestId('doctors-status').selectOption('');
        await page.getByTestId('doctors-sort').selectOption('-name');
        await row(page, dashDoctor.name).waitFor();
        assert.equal(await page.getByTestId('doctor-row').count(), 2);
        assert.equal(await page.getByTestId('doctors-next').count(), 0, 'one page: no pager');
        await page.getByTestId('doctors-sort').selectOption('name');
    });

    it('says on the security page who did what to whom, in words, and keeps words whole on a phone', async () => {
        await page.goto(url('/security'));
        const table = page.getByTestId('audit-table');
        await table.waitFor();
        const edited = table.locator('tr[data-action="doctor.updated"]').first();
        await edited.waitFor();
        assert.match(await edited.textContent(), /Edited a doctor's details/);
        assert.ok((await edited.textContent()).includes(managed.name), 'the doctor is named, not an id');
        const cells = await table.locator('tbody tr[data-action] td').allTextContents();
        const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
        assert.ok(!cells.some(text => uuid.test(text)), `an id is shown: ${cells.find(text => uuid.test(text))}`);
        assert.ok(!cells.some(text => /^[a-z_]+(\.[a-z_]+)+$/.test(text.trim())), 'a raw action code is shown');

        // In French on a phone: no word of the log is cut across two lines.
        await page.evaluate(() => localStorage.setItem('locale', 'fr'));
        await page.setViewportSize({ width: 390, height: 844 });
        try {
            await page.reload();
            await table.locator('tr[data-action="doctor.updated"]').first().waitFor();
            const cut = await page.evaluate(() => {
                const found = [];
                for (const cell of document.querySelectorAll('[data-testid="audit-table"] td')) {
                    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                        for (const match of node.textContent.matchAll(/\S+/g)) {
                            const range = document.createRange();
                            range.setStart(node, match.index);
                            range.setEnd(node, match.index + match[0].length);
                            const tops = new Set([...range.getClientRects()].map(rect => Math.round(rect.top)));
                            if (tops.size > 1) found.push(match[0]);
                        }
                    }
                }
                return found;
            });
            assert.deepEqual(cut, [], `words cut across lines: ${cut.join(', ')}`);
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert.ok(overflow <= 1, `the page is ${overflow}px wider than the phone`);
        } finally {
            await page.evaluate(() => localStorage.setItem('locale', 'en'));
            await page.setViewportSize({ width: 1280, height: 860 });
            // The tests after this one go on from Manage Doctors.
            await page.goto(url('/manage'));
            await heading(page, 'Manage Doctors').waitFor();
            await row(page, managed.name).waitFor();
        }
    });

    it('checks, adds and deletes a doctor through the Manage Doctors form', async () => {
        await button(page, 'Add New Doctor').first().click();
        const dialog = page.getByRole('dialog', { name: 'Add New Doctor' });
        await dialog.waitFor();
        // Spec §2/§9 defaults.
        assert.equal(await dialog.getByLabel('Specialty').inputValue(), 'Radiologist');
        assert.equal(await dialog.getByLabel('Country').inputValue(), 'Ghana');
        assert.equal(await dialog.getByLabel('Experience (years)').inputValue(), '0');
        const specialties = await dialog.getByLabel('Specialty').locator('option').allTextContents();
        assert.deepEqual(specialties, ['Radiologist', 'Radiotherapist', 'Cardiologist', 'General Practitioner', 'Nurse']);
        const countries = await dialog.getByLabel('Country').locator('option').allTextContents();
        assert.equal(countries[0], 'Select a country');
        assert.ok(countries.length > 50 && countries.includes('Zimbabwe') && countries.includes('Ivory Coast'));

        await dialog.getByLabel('Country').selectOption('');
        await button(dialog, 'Add Doctor').click();
        for (const message of [
            'Name is required',
            'Email is required',
            'Phone number is required',
            'License number is required',
            'Country is required',
            'State/Province is required',
            'Password is required',
        ]) {
            await dialog.getByText(message, { exact: true }).waitFor();
        }
        await dialog.getByLabel('Email', { exact: true }).fill('nobody@nowhere');
        await dialog.getByLabel('Phone Number').fill('024-123');
        await dialog.getByLabel('Password', { exact: true }).fill('seven77');
        await dialog.getByLabel('Experience (years)').fill('-1');
        await dialog.getByText('Invalid email format', { exact: true }).waitFor();
        await dialog.getByText('Invalid phone number format', { exact: true }).waitFor();
        await dialog.getByText('Password must be at least 8 characters', { exact: true }).waitFor();
        await dialog.getByText('Experience cannot be negative', { exact: true }).waitFor();
        const phone = dialog.getByLabel('Phone Number');
        assert.equal(await describedError(phone), 'Invalid phone number format');
        await settled(page);
        await screenshot(page, 'manage-doctors-form-errors');
        await assertAccessible(page, 'manage add dialog with errors');

        // Closing resets the form and its errors.
        await button(dialog, 'Cancel').click();
        await dialog.waitFor({ state: 'detached' });
        await button(page, 'Add New Doctor').first().click();
        await dialog.waitFor();
        assert.equal(await dialog.getByLabel('Email', { exact: true }).inputValue(), '');
        assert.equal(await dialog.locator('.field-error').count(), 0, 'no errors after reopening');

        await dialog.getByLabel('Full Name').fill(manageDoctor.name);
        await dialog.getByLabel('Email', { exact: true }).fill(manageDoctor.email);
        await dialog.getByLabel('Phone Number').fill('0209876543');
        await dialog.getByLabel('Specialty').selectOption('Nurse');
        await dialog.getByLabel('License Number').fill(`NMC-${stamp}`);
        await dialog.getByLabel('Experience (years)').fill('3');
        await dialog.getByLabel('Country').selectOption('Kenya');
        await dialog.getByLabel('State/Province').fill('Nairobi');
        await dialog.getByLabel('Password', { exact: true }).fill(manageDoctor.password);
        await button(dialog, 'Add Doctor').click();
        await toast(page, `Doctor ${manageDoctor.name} added successfully!`).waitFor();
        await dialog.waitFor({ state: 'detached' });
        await row(page, manageDoctor.name).getByText('3 years', { exact: true }).waitFor();
        assert.equal(await page.getByTestId('doctor-row').count(), 3);

        // Delete: Cancel keeps the doctor; Delete removes them.
        await button(page, `Delete ${manageDoctor.name}`).click();
        const confirm = page.getByRole('dialog', { name: 'Confirm Delete' });
        await confirm.waitFor();
        await confirm
            .getByText('Are you sure you want to remove this doctor? This action cannot be undone.')
            .waitFor();
        await settled(page);
        await assertAccessible(page, 'confirm delete dialog');
        await button(confirm, 'Cancel').click();
        await confirm.waitFor({ state: 'detached' });
        await row(page, manageDoctor.name).waitFor();

        await button(page, `Delete ${manageDoctor.name}`).click();
        await button(confirm, 'Delete').click();
        await toast(page, 'Doctor removed successfully!').waitFor();
        await confirm.waitFor({ state: 'detached' });
        await row(page, manageDoctor.name).waitFor({ state: 'detached' });
        assert.equal(await page.getByTestId('doctor-row').count(), 2);
    });

    it('is accessible on /manage in dark and in Arabic', async () => {
        await page.getByTestId('theme-toggle').click();
        await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
        await assertAccessible(page, 'manage doctors (dark)');
        await screenshot(page, 'manage-doctors-dark');
        await button(page, `Edit ${managed.name}`).click();
        await page.getByRole('dialog', { name: 'Edit Doctor' }).waitFor();
        await settled(page);
        await assertAccessible(page, 'edit dialog (dark)');
        await screenshot(page, 'manage-doctors-edit-dark');
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });

        await page.goto(url('/dashboard'));
        await page.getByTestId('total-doctors').waitFor();
        await assertAccessible(page, 'hospital dashboard (dark)');
        await screenshot(page, 'hospital-dashboard-dark');
        await page.getByTestId('theme-toggle').click();
        await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');

        await page.evaluate(() => localStorage.setItem('locale', 'ar'));
        await page.goto(url('/manage'));
        await heading(page, 'إدارة الأطباء').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await row(page, managed.name).getByText('نشط', { exact: true }).waitFor();
        // Arabic plural rules: 12 takes the singular noun (3-10 take سنوات).
        await row(page, managed.name).getByText('12 سنة', { exact: true }).waitFor();
        await assertAccessible(page, 'manage doctors (Arabic)');
        await screenshot(page, 'manage-doctors-ar');
        await button(page, 'إضافة طبيب جديد').first().click();
        await page.getByRole('dialog', { name: 'إضافة طبيب جديد' }).waitFor();
        await settled(page);
        await assertAccessible(page, 'manage add dialog (Arabic)');
        await screenshot(page, 'manage-doctors-add-ar');
        await page.keyboard.press('Escape');

        await page.goto(url('/dashboard'));
        await page.getByTestId('total-doctors').waitFor();
        await heading(page, 'لوحة تحكم المستشفى').waitFor();
        assert.equal((await page.getByTestId('welcome').textContent()).trim(), `مرحبًا، ${hospital.name}`);
        await assertAccessible(page, 'hospital dashboard (Arabic)');
        await screenshot(page, 'hospital-dashboard-ar');
        await page.evaluate(() => localStorage.setItem('locale', 'en'));
    });

    it('hands a typed doctor over to the full registration form', async () => {
        await page.goto(url('/manage'));
        await heading(page, 'Manage Doctors').waitFor();
        await button(page, 'Add New Doctor').first().click();
        const dialog = page.getByRole('dialog', { name: 'Add New Doctor' });
        await dialog.getByLabel('Full Name').fill('Esi Draft');
        await dialog.getByLabel('Email', { exact: true }).fill('esi.draft@example.com');
        await dialog.getByLabel('Phone Number').fill('0551234567');
        await dialog.getByLabel('License Number').fill('DRAFT-1');
        await dialog.getByLabel('State/Province').fill('Central');
        await dialog.getByLabel('Password', { exact: true }).fill('never-stored');
        await button(dialog, 'Open full registration form').click();

        await waitForPath(page, '/doctor-register');
        const params = new URL(page.url()).searchParams;
        assert.equal(params.get('isHospitalCreated'), 'true');
        assert.ok(params.get('hospitalId'), 'the hospital id travels with the draft');
        // The URL changes before the form has rendered (its texts load first) and the dialog stays
        // on screen until then, with the same labels: read only once the restored form is shown.
        await page.getByText('Your saved form has been restored. Please enter the password again.').waitFor();
        await page.getByRole('dialog').waitFor({ state: 'detached' });
        assert.equal(await page.getByLabel('Full Name').inputValue(), 'Esi Draft');
        assert.equal(await page.getByLabel('Email', { exact: true }).inputValue(), 'esi.draft@example.com');
        assert.equal(await page.getByLabel('License Number').inputValue(), 'DRAFT-1');
        assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'password never kept');
        assert.equal(await page.evaluate(() => sessionStorage.getItem('doctorRegistrationDraft')), null);
    });
});

describe('a hospital without a subscription', () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'no uncaught errors in the page');
        await browser.close();
    });

    it('cannot add a doctor and is pointed to its plans', async () => {
        await signInAs(page, FIXTURES.hospital, 'hospital', '/dashboard');
        await page.getByTestId('total-doctors').waitFor();
        assert.equal((await page.getByTestId('plan-name').textContent()).trim(), 'No Plan');
        assert.notEqual((await page.getByTestId('plan-status').textContent()).trim(), 'Active');

        const add = await addDoctorReady(page);
        assert.equal(await add.getAttribute('aria-disabled'), 'true');
        // Without a plan there is no limit to reach: the reason is the missing plan.
        assert.equal(await tooltipText(add), NO_PLAN);
        const tip = await description(add);
        assert.equal(await tip.isVisible(), false, 'hidden until hovered');
        await add.hover();
        await tip.waitFor({ state: 'visible' });
        await page.mouse.move(0, 0);
        // Keyboard users get it too: the button stays focusable.
        await add.focus();
        await tip.waitFor({ state: 'visible' });
        // Forced: Playwright itself waits for an aria-disabled button to become enabled.
        await add.click({ force: true });
        assert.equal(await page.getByRole('dialog').count(), 0, 'a disabled Add opens nothing');
        await screenshot(page, 'hospital-dashboard-no-plan');
        await assertAccessible(page, 'hospital dashboard without a plan');

        await page.getByTestId('limit-note').getByRole('link', { name: 'View plans' }).click();
        await waitForPath(page, '/subscription');
    });

    it('cannot open the Manage Doctors form either, and is told a plan is needed', async () => {
        await signInAs(page, FIXTURES.hospital, 'hospital', '/manage');
        await heading(page, 'Manage Doctors').waitFor();
        const add = await manageAddReady(page);
        assert.equal(await add.getAttribute('aria-disabled'), 'true');
        assert.equal(await tooltipText(add), NO_PLAN);
        await add.click({ force: true });
        assert.equal(await page.getByRole('dialog').count(), 0, 'a disabled Add opens no form');
        assert.equal((await page.getByTestId('limit-note').textContent()).trim(), `${NO_PLAN} View plans`);
        await settled(page); // the focused button's tooltip fades in: axe measures its contrast once shown
        await assertAccessible(page, 'manage doctors without a plan');
        await screenshot(page, 'manage-doctors-no-plan');
    });

    it('goes to /subscription when the server refuses an add (limit check unavailable)', async () => {
        // Spec §8: a failed limit check lets the hospital try; the server has the last word.
        await page.route('**/api/subscription/check-doctor-limit/**', route =>
            route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"unavailable"}' }),
        );
        await page.goto(url('/dashboard'));
        const add = await addDoctorReady(page);
        assert.equal(await add.getAttribute('aria-disabled'), null);
        await add.click();
        const dialog = page.getByRole('dialog', { name: 'Add New Doctor' });
        await dialog.getByLabel('Name', { exact: true }).fill('Kojo Refused');
        await dialog.getByLabel('Email', { exact: true }).fill(uniqueEmail('refused'));
        await dialog.getByLabel('Phone Number').fill('0241112223');
        await dialog.getByLabel('Specialty').selectOption('Nurse');
        await dialog.getByLabel('License Number').fill(`REF-${Date.now()}`);
        await dialog.getByLabel('Password', { exact: true }).fill('refused1');
        await dialog.getByLabel('Country').fill('Ghana');
        await dialog.getByLabel('State').fill('Greater Accra');
        await button(dialog, 'Add Doctor').click();
        await toast(page, /^Error adding doctor: .*subscription/i).waitFor();
        await dialog.getByRole('alert').filter({ hasText: /subscription/i }).waitFor();
        await waitForPath(page, '/subscription');
        await page.unroute('**/api/subscription/check-doctor-limit/**');
    });
});

describe("a hospital at its plan's doctor limit", () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'no uncaught errors in the page');
        await browser.close();
    });

    it('finds Add disabled on the dashboard and on Manage Doctors, with the limit as the reason', async () => {
        await signInAs(page, FIXTURES.fullHospital, 'hospital', '/dashboard');
        await page.getByTestId('total-doctors').filter({ hasText: '5' }).waitFor();
        const add = await addDoctorReady(page);
        assert.equal(await add.getAttribute('aria-disabled'), 'true');
        assert.equal(await tooltipText(add), LIMIT_REACHED);

        await page.getByRole('link', { name: 'Doctors', exact: true }).click();
        await heading(page, 'Manage Doctors').waitFor();
        const manageAdd = await manageAddReady(page);
        assert.equal(await manageAdd.getAttribute('aria-disabled'), 'true', 'disabled before any form is filled');
        assert.equal(await tooltipText(manageAdd), LIMIT_REACHED);
        await manageAdd.hover();
        await (await description(manageAdd)).waitFor({ state: 'visible' });
        await manageAdd.click({ force: true });
        assert.equal(await page.getByRole('dialog').count(), 0, 'a disabled Add opens no form');
        assert.equal((await page.getByTestId('limit-note').textContent()).trim(), `${LIMIT_REACHED} View plans`);
        await screenshot(page, 'manage-doctors-at-limit');

        // A removed doctor frees a seat: Add is enabled again at once.
        await button(page, 'Delete Nurse Tema 5').click();
        await button(page.getByRole('dialog', { name: 'Confirm Delete' }), 'Delete').click();
        await toast(page, 'Doctor removed successfully!').waitFor();
        await page.waitForFunction(
            () => document.querySelector('[data-testid="manage-add-doctor"]')?.getAttribute('aria-disabled') === null,
        );
        assert.equal(await tooltipText(manageAdd), 'Add a new doctor to your hospital');
        assert.equal(await page.getByTestId('limit-note').count(), 0);
    });
});

describe('other roles', () => {
    let browser;
    let page;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'no uncaught errors in the page');
        await browser.close();
    });

    it("shows a doctor the pages' own access notices", async () => {
        await signInAs(page, FIXTURES.radiologist, 'doctor', '/manage');
        await heading(page, 'Access Denied').waitFor();
        await page.getByText('This page is only available for hospital users.').waitFor();
        assert.equal(await page.getByRole('link', { name: 'Go to Login' }).getAttribute('href'), '/login');
        assert.equal(await page.getByTestId('doctors-table').count(), 0);
        await assertAccessible(page, 'manage doctors as a doctor');

        await page.goto(url('/dashboard'));
        await heading(page, 'Access Restricted').waitFor();
        await page.getByText('Please log in as a hospital administrator to view this page.').waitFor();
        assert.equal(await page.getByTestId('total-doctors').count(), 0);
        await screenshot(page, 'hospital-dashboard-as-doctor');
    });

    it('sends a visitor who is not signed in to role selection', async () => {
        await page.context().clearCookies();
        await page.evaluate(() => localStorage.clear());
        await page.goto(url('/manage'));
        await waitForPath(page, '/');
        await page.goto(url('/dashboard'));
        await waitForPath(page, '/');
    });
});
