// The doctor dashboard and the profile page in Chromium against the real API:
// the dashboard's welcome, subscription card (plan, status, cycle, dates,
// loading/error states, Manage Plan or Choose Plan) and the not-yet-built
// quick actions; the profile's view and edit modes, keyboard tabs, a real
// certificate upload (progress, refusal of other file types, download of the
// stored bytes), work history, availability, client and server field errors
// landing on the right tab, persistence across a reload, axe in light, dark
// and Arabic; and the read-only profile of hospital and admin users.
// Edits use FIXTURES.profileDoctor only, so other scripts' accounts stay as they are.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { assertAccessible, FIXTURES, openBrowser, screenshot, signInAs, url, waitForPath } from './lib.mjs';

const heading = (page, name) => page.getByRole('heading', { level: 1, name });
const button = (scope, name) => scope.getByRole('button', { name, exact: true });
const tab = (page, name) => page.getByRole('tab', { name });
const field = (scope, label) => scope.getByLabel(label, { exact: true });
const group = (page, name) => page.getByRole('group', { name, exact: true });
const toast = (page, text) => page.getByTestId('toast').filter({ hasText: text });
const text = async locator => (await locator.textContent()).trim();
/** A weekday's state as the read-only view words it. */
const dayStatus = (page, day) => text(group(page, day).getByTestId('day-status'));

/** The message tied to a control through aria-describedby (what a screen reader reads). */
const describedError = async (page, control) => {
    await control.and(page.locator('[aria-invalid="true"]')).waitFor();
    const ids = (await control.getAttribute('aria-describedby')) ?? '';
    const [id] = ids.split(/\s+/).filter(Boolean);
    assert.ok(id, 'no error tied to the control');
    return text(page.locator(`[id="${id}"]`));
};

const isSelected = async locator => (await locator.getAttribute('aria-selected')) === 'true';

/** Client-side navigation (no reload): the app's router follows popstate. */
const navigateInApp = (page, route) =>
    page.evaluate(target => {
        window.history.pushState({}, '', target);
        window.dispatchEvent(new PopStateEvent('popstate'));
    }, route);

const getJson = async (route, token) => {
    const response = await fetch(url(route), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200, `${route}: ${response.status}`);
    return response.json();
};

describe('doctor dashboard and profile', () => {
    let browser;
    let page;
    let session;
    let folder;
    let pdfPath;
    let textPath;
    let fakePdfPath;
    const doctor = FIXTURES.profileDoctor;

    before(async () => {
        browser = await openBrowser();
        page = browser.page;
        folder = mkdtempSync(path.join(tmpdir(), 'cara-profile-'));
        pdfPath = path.join(folder, 'acls-certificate.pdf');
        writeFileSync(pdfPath, '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
        textPath = path.join(folder, 'notes.txt');
        writeFileSync(textPath, 'These are notes, not a certificate.\n');
        // Named like a PDF, but its bytes are not one: refused all the same.
        fakePdfPath = path.join(folder, 'renamed.pdf');
        writeFileSync(fakePdfPath, 'GIF89a not really a pdf');
    });
    after(async () => {
        rmSync(folder, { recursive: true, force: true });
        assert.deepEqual(browser.pageErrors, [], 'no uncaught errors in the page');
        await browser.close();
    });

    it('welcomes the doctor with the subscription card and quick actions', async () => {
        session = await signInAs(page, doctor, 'doctor', '/doctor-dashboard');
        await heading(page, `Welcome, Dr. ${doctor.name}`).waitFor();
        assert.equal(await text(page.getByTestId('plan-name')), 'Basic');
        assert.equal(await text(page.getByTestId('plan-status')), 'Active');
        assert.equal(await text(page.getByTestId('billing-cycle')), 'Monthly');
        // The seeded subscription has no period end yet.
        assert.equal(await text(page.getByTestId('renewal-date')), 'Not set');
        await page.getByRole('link', { name: 'Manage Plan', exact: true }).waitFor();
        assert.equal(await page.getByRole('link', { name: 'Choose Plan', exact: true }).count(), 0);

        // Quick actions lead to the consultations and to the doctor's assistant console.
        await page.getByRole('heading', { level: 2, name: 'Quick Actions' }).waitFor();
        assert.equal(await page.getByTestId('quick-action-consultations').getAttribute('href'), '/consultations');
        assert.equal(await page.getByTestId('quick-action-console').getAttribute('href'), '/cardiologist');

        await assertAccessible(page, 'doctor dashboard');
        await screenshot(page, 'doctor-dashboard');

        await page.getByRole('link', { name: 'Manage Plan', exact: true }).click();
        await waitForPath(page, '/doctor-subscription');
    });

    it('shows the loading and error states, then unparsable dates', async () => {
        await page.goto(url('/profile'));
        await heading(page, 'Profile').waitFor();
        await page.waitForLoadState('networkidle'); // the navbar's own subscription check is done
        // On the client-side way to the dashboard the subscription gate asks first, then the page.
        let calls = 0;
        let release;
        const held = new Promise(resolve => {
            release = resolve;
        });
        await page.route('**/api/subscription/current', async route => {
            calls += 1;
            if (calls === 1) return route.continue();
            await held;
            return route.fulfill({
                status: 500,
                contentType: 'application/json',
                body: JSON.stringify({ message: 'Something went wrong on our side. Please try again.', fields: {} }),
            });
        });
        await navigateInApp(page, '/doctor-dashboard');
        await page.getByText('Loading subscription details...', { exact: true }).waitFor();
        release();
        await page.getByText('Subscription Error:').waitFor();
        await page.getByText('Failed to load subscription details', { exact: true }).waitFor();
        await screenshot(page, 'doctor-dashboard-error');

        // Try again with dates the page cannot read.
        await page.unroute('**/api/subscription/current');
        await page.route('**/api/subscription/current', async route => {
            const response = await route.fetch();
            const body = await response.json();
            await route.fulfill({
                response,
                json: { ...body, endDate: 'not-a-date', nextPaymentDate: 'not-a-date' },
            });
        });
        await button(page, 'Try again').click();
        await page.getByTestId('plan-name').waitFor();
        assert.equal(await text(page.getByTestId('renewal-date')), 'Invalid date');
        await page.unroute('**/api/subscription/current');
    });

    it('offers Choose Plan to a doctor on a trial', async () => {
        await signInAs(page, FIXTURES.radiotherapist, 'doctor', '/doctor-dashboard');
        await heading(page, `Welcome, Dr. ${FIXTURES.radiotherapist.name}`).waitFor();
        await page.getByTestId('plan-name').waitFor();
        assert.equal(await text(page.getByTestId('plan-status')), 'Trialing');
        await page.getByRole('link', { name: 'Choose Plan', exact: true }).click();
        await waitForPath(page, '/doctor-subscription');
    });

    it('keeps the profile read-only until Edit Profile, with keyboard tabs and Cancel', async () => {
        session = await signInAs(page, doctor, 'doctor', '/profile');
        await heading(page, 'Profile').waitFor();
        const phone = field(page, 'Phone Number');
        const original = await phone.inputValue();
        assert.equal(await phone.isEditable(), false, 'read-only before Edit Profile');
        assert.equal(await field(page, 'Specialty').inputValue(), 'Cardiologist');
        assert.equal(await button(page, 'Save Changes').count(), 0);
        assert.equal(await page.getByRole('button', { name: /^Add / }).count(), 0);

        // Tabs: one tab stop, arrows move and select, Home/End jump.
        const tabs = page.getByRole('tab');
        assert.deepEqual(
            (await tabs.allTextContents()).map(label => label.trim()),
            ['Personal Information', 'Certifications', 'Work History', 'Availability'],
        );
        assert.ok(await isSelected(tab(page, 'Personal Information')));
        await tab(page, 'Personal Information').focus();
        await page.keyboard.press('ArrowRight');
        assert.ok(await isSelected(tab(page, 'Certifications')));
        assert.ok(await tab(page, 'Certifications').evaluate(node => node === document.activeElement));
        await page.keyboard.press('End');
        assert.ok(await isSelected(tab(page, 'Availability')));
        await page.getByRole('tabpanel').getByText('Monday').waitFor();
        await page.keyboard.press('ArrowRight'); // wraps around
        assert.ok(await isSelected(tab(page, 'Personal Information')));
        await page.keyboard.press('ArrowLeft');
        assert.ok(await isSelected(tab(page, 'Availability')));
        // Default week: Monday to Friday 09:00-17:00 available, the weekend not.
        assert.equal(await dayStatus(page, 'Monday'), 'Available');
        assert.equal(await field(group(page, 'Monday'), 'Start Time').inputValue(), '09:00');
        assert.equal(await field(group(page, 'Monday'), 'End Time').inputValue(), '17:00');
        assert.equal(await field(group(page, 'Monday'), 'Start Time').isEditable(), false);
        assert.equal(await dayStatus(page, 'Saturday'), 'Not available');
        assert.equal(await dayStatus(page, 'Sunday'), 'Not available');
        await page.keyboard.press('Home');
        assert.ok(await isSelected(tab(page, 'Personal Information')));
        await assertAccessible(page, 'profile (view mode)');
        await screenshot(page, 'profile-view');

        await button(page, 'Edit Profile').click();
        await button(page, 'Save Changes').waitFor();
        assert.equal(await phone.isEditable(), true);
        await phone.fill('000');
        await button(page, 'Cancel').click();
        await button(page, 'Edit Profile').waitFor();
        assert.equal(await phone.inputValue(), original, 'Cancel restores the stored value');
        assert.equal(await phone.isEditable(), false);
    });

    it('edits, uploads a certificate, validates and saves the profile', async () => {
        await button(page, 'Edit Profile').click();
        await field(page, 'Phone Number').fill('+233 24 555 0199');
        await field(page, 'Years of Experience').fill('12');

        // Certifications: add one, refuse files that are not PDF/PNG/JPEG, upload a real PDF.
        await tab(page, 'Certifications').click();
        await button(page, 'Add Certification').click();
        const cert = group(page, 'Certification 1');
        await field(cert, 'Certification Name').waitFor();
        assert.ok(
            await field(cert, 'Certification Name').evaluate(node => node === document.activeElement),
            'the new entry gets focus',
        );
        await field(cert, 'Certification Name').fill('Advanced Cardiac Life Support');
        await field(cert, 'Issuer').fill('American Heart Association');
        await field(cert, 'Date Obtained').fill('2021-06-15');

        const fileInput = field(cert, 'Certificate File');
        await fileInput.setInputFiles(textPath);
        assert.equal(await describedError(page, fileInput), 'Only PDF, PNG or JPEG files can be uploaded.');
        await fileInput.setInputFiles(fakePdfPath);
        assert.equal(await describedError(page, fileInput), 'Only PDF, PNG or JPEG files can be uploaded.');

        // Hold the upload a moment to see its progress state; saving waits for it.
        let releaseUpload;
        const uploadHeld = new Promise(resolve => {
            releaseUpload = resolve;
        });
        await page.route('**/api/auth/doctor/certificates', async route => {
            await uploadHeld;
            await route.continue();
        });
        await fileInput.setInputFiles(pdfPath);
        await cert.getByTestId('upload-progress').waitFor();
        assert.ok(await button(page, 'Save Changes').isDisabled(), 'no saving while a file uploads');
        await screenshot(page, 'profile-uploading');
        releaseUpload();
        await cert.getByTestId('certificate-file-name').waitFor();
        await page.unroute('**/api/auth/doctor/certificates');
        assert.equal(await text(cert.getByTestId('certificate-file-name')), 'acls-certificate.pdf');
        await cert.getByText('Uploaded. Save your changes to keep it.').waitFor();
        assert.ok(await button(page, 'Save Changes').isEnabled());

        // Work history with an end date before its start.
        await tab(page, 'Work History').click();
        await button(page, 'Add Work Experience').click();
        const work = group(page, 'Work Experience 1');
        await field(work, 'Hospital/Organization').fill('Korle Bu Teaching Hospital');
        await field(work, 'Position').fill('Senior Cardiologist');
        await field(work, 'Start Date').fill('2015-03-01');
        await field(work, 'End Date').fill('2014-12-31');
        await field(work, 'Description').fill('Echocardiography and heart-failure clinic.');

        // Availability: Saturday 10:00-14:00; its times open only once it is available.
        await tab(page, 'Availability').click();
        const saturday = group(page, 'Saturday');
        assert.equal(await field(saturday, 'Available').isChecked(), false);
        assert.equal(await field(saturday, 'Start Time').isEditable(), false);
        await field(saturday, 'Available').check();
        assert.equal(await field(saturday, 'Start Time').isEditable(), true);
        await field(saturday, 'Start Time').fill('10:00');
        await field(saturday, 'End Time').fill('14:00');

        // Saving finds the bad end date: the Work History tab opens with the error on the field.
        await button(page, 'Save Changes').click();
        await page.getByText('Please fix the errors in the form').waitFor();
        assert.ok(await isSelected(tab(page, 'Work History')), 'switched to the tab of the first error');
        const endDate = field(work, 'End Date');
        assert.equal(await describedError(page, endDate), 'End date cannot be before start date');
        assert.ok(await endDate.evaluate(node => node === document.activeElement), 'the field is focused');
        await screenshot(page, 'profile-field-error');
        await endDate.fill('2019-12-31');
        assert.equal(await endDate.getAttribute('aria-invalid'), null, 'the error follows the fix');

        // An empty certification name is caught the same way.
        await tab(page, 'Certifications').click();
        await field(cert, 'Certification Name').fill('  ');
        await tab(page, 'Availability').click();
        await button(page, 'Save Changes').click();
        assert.ok(await isSelected(tab(page, 'Certifications')));
        assert.equal(
            await describedError(page, field(cert, 'Certification Name')),
            'Certification name is required',
        );
        await field(cert, 'Certification Name').fill('Advanced Cardiac Life Support');
        await assertAccessible(page, 'profile (edit mode, certifications)');

        await button(page, 'Save Changes').click();
        await toast(page, 'Profile updated successfully').waitFor();
        await button(page, 'Edit Profile').waitFor();
        assert.equal(await button(page, 'Save Changes').count(), 0, 'back to view mode');
        assert.equal(await field(cert, 'Certification Name').isEditable(), false);
    });

    it('keeps everything across a reload and serves the stored file back', async () => {
        await page.reload();
        await heading(page, 'Profile').waitFor();
        assert.equal(await field(page, 'Phone Number').inputValue(), '+233 24 555 0199');
        assert.equal(await field(page, 'Years of Experience').inputValue(), '12');

        await tab(page, 'Certifications').click();
        const cert = group(page, 'Certification 1');
        assert.equal(await field(cert, 'Certification Name').inputValue(), 'Advanced Cardiac Life Support');
        assert.equal(await field(cert, 'Issuer').inputValue(), 'American Heart Association');
        assert.equal(await field(cert, 'Date Obtained').inputValue(), '2021-06-15');
        assert.equal(await text(cert.getByTestId('certificate-file-name')), 'acls-certificate.pdf');
        await screenshot(page, 'profile-certifications');

        const [download] = await Promise.all([page.waitForEvent('download'), button(cert, 'Download').click()]);
        assert.equal(download.suggestedFilename(), 'acls-certificate.pdf');
        const bytes = readFileSync(await download.path());
        assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
        assert.deepEqual(bytes, readFileSync(pdfPath), 'the very bytes uploaded');

        await tab(page, 'Work History').click();
        const work = group(page, 'Work Experience 1');
        assert.equal(await field(work, 'Hospital/Organization').inputValue(), 'Korle Bu Teaching Hospital');
        assert.equal(await field(work, 'Position').inputValue(), 'Senior Cardiologist');
        assert.equal(await field(work, 'Start Date').inputValue(), '2015-03-01');
        assert.equal(await field(work, 'End Date').inputValue(), '2019-12-31');
        assert.equal(
            await field(work, 'Description').inputValue(),
            'Echocardiography and heart-failure clinic.',
        );

        await tab(page, 'Availability').click();
        const saturday = group(page, 'Saturday');
        assert.equal(await dayStatus(page, 'Saturday'), 'Available');
        assert.equal(await field(saturday, 'Start Time').inputValue(), '10:00');
        assert.equal(await field(saturday, 'End Time').inputValue(), '14:00');
        assert.equal(await dayStatus(page, 'Sunday'), 'Not available');
        await screenshot(page, 'profile-availability');
        await page.setViewportSize({ width: 390, height: 844 });
        await button(page, 'Edit Profile').click();
        await screenshot(page, 'profile-availability-phone');
        await button(page, 'Cancel').click();
        await page.setViewportSize({ width: 1280, height: 860 });

        // The server holds the same.
        const user = await getJson('/api/auth/user', session.token);
        assert.equal(user.phoneNumber, '+233 24 555 0199');
        assert.equal(user.experience, 12);
        assert.equal(user.certifications[0].fileName, 'acls-certificate.pdf');
        assert.ok(user.certifications[0].fileId);
        assert.deepEqual(user.availability.find(day => day.day === 'Saturday'), {
            day: 'Saturday',
            startTime: '10:00',
            endTime: '14:00',
            isAvailable: true,
        });
    });

    it("shows the server's field errors on the right tab", async () => {
        await button(page, 'Edit Profile').click();
        await tab(page, 'Personal Information').click();
        await field(page, 'Email').fill(FIXTURES.radiologist.email);
        await tab(page, 'Availability').click();
        await button(page, 'Save Changes').click();
        await toast(page, 'Failed to update profile').waitFor();
        assert.ok(await isSelected(tab(page, 'Personal Information')));
        assert.equal(
            await describedError(page, field(page, 'Email')),
            // The sign-in email changes only on the Account security card, with the password.
            'Change your sign-in email under Account security: it needs your current password',
        );
        await button(page, 'Cancel').click();
        assert.equal(await field(page, 'Email').inputValue(), doctor.email);
    });

    it('is accessible in the dark theme and in Arabic', async () => {
        await page.evaluate(() => localStorage.setItem('theme', 'dark'));
        await page.reload();
        await heading(page, 'Profile').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
        await button(page, 'Edit Profile').click();
        await tab(page, 'Certifications').click();
        await group(page, 'Certification 1').getByTestId('certificate-file-name').waitFor();
        await assertAccessible(page, 'profile (dark, edit mode)');
        await screenshot(page, 'profile-doctor-dark');
        await button(page, 'Cancel').click();

        await page.evaluate(() => localStorage.setItem('locale', 'ar'));
        await page.reload();
        await heading(page, 'الملف الشخصي').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await page.getByRole('button', { name: 'تعديل الملف الشخصي' }).waitFor();
        // Arrow keys follow the reading direction: left is "next" right to left.
        await tab(page, 'المعلومات الشخصية').focus();
        await page.keyboard.press('ArrowLeft');
        assert.ok(await isSelected(tab(page, 'الشهادات')));
        await assertAccessible(page, 'profile (dark, Arabic)');
        await page.evaluate(() => localStorage.setItem('theme', 'light'));
        await page.reload();
        await heading(page, 'الملف الشخصي').waitFor();
        await tab(page, 'أوقات التوفر').click();
        await group(page, 'السبت').waitFor();
        await assertAccessible(page, 'profile (Arabic)');
        await screenshot(page, 'profile-doctor-ar');

        await page.goto(url('/doctor-dashboard'));
        await heading(page, `مرحبًا، د. ${doctor.name}`).waitFor();
        await page.getByTestId('plan-name').waitFor();
        await assertAccessible(page, 'doctor dashboard (Arabic)');
        await screenshot(page, 'doctor-dashboard-ar');
        await page.evaluate(() => localStorage.removeItem('locale'));
    });

    it('shows hospital and admin users their details read-only, without an edit button', async () => {
        await signInAs(page, FIXTURES.hospital, 'hospital', '/profile');
        await heading(page, 'Profile').waitFor();
        const details = page.getByTestId('account-details');
        await details.getByText(FIXTURES.hospital.email, { exact: true }).waitFor();
        await details.getByText(FIXTURES.hospital.name, { exact: true }).first().waitFor();
        assert.equal(await text(details.locator('[data-detail="role"] dd')), 'Hospital');
        assert.equal(await button(page, 'Edit Profile').count(), 0);
        assert.equal(await page.getByRole('tab').count(), 0);
        assert.equal(await page.locator('main input, main select, main textarea').count(), 0);
        await assertAccessible(page, 'hospital profile');
        await screenshot(page, 'profile-hospital');

        await signInAs(page, FIXTURES.admin, 'admin', '/profile');
        await heading(page, 'Profile').waitFor();
        assert.equal(await text(page.locator('[data-detail="role"] dd')), 'Admin');
        assert.equal(await button(page, 'Edit Profile').count(), 0);
    });
});
