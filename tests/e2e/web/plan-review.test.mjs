// The radiotherapist console's plan review in Chromium: connect (consent first), upload the
// phantom plan's three files, compute on the worker, read the chart and the tables; a file that is
// not DICOM is refused naming it; the panel in Arabic. Run by tests/e2e/test_web_plan_review.py
// (PLAN_DIR: rtstruct.dcm, rtdose.dcm, rtplan.dcm and notes.txt).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { assertAccessible, BASE_URL, FIXTURES, openBrowser, screenshot, signInAs, TIMEOUT, url } from './lib.mjs';

const PLAN_DIR = process.env.PLAN_DIR ?? '';
const MEDIA_ARGS = JSON.parse(process.env.CHROMIUM_ARGS ?? '[]');
const button = (page, name) => page.getByRole('button', { name, exact: true });

describe('plan review in the radiotherapist console', () => {
    let browser;
    let page;

    before(async () => {
        assert.ok(PLAN_DIR, 'run through tests/e2e/test_web_plan_review.py');
        browser = await openBrowser({ args: MEDIA_ARGS });
        page = browser.page;
        await browser.context.grantPermissions(['microphone', 'camera'], { origin: BASE_URL });
        await signInAs(page, FIXTURES.radiotherapist, 'doctor', '/radiotherapist');
    });
    after(async () => {
        assert.deepEqual(browser.pageErrors, [], 'uncaught errors in the page');
        await browser.close();
    });

    it('asks for a consultation first', async () => {
        const panel = page.getByTestId('plan-review');
        await panel.getByRole('heading', { name: 'Plan review (DVH)' }).waitFor();
        await panel.getByText('Start the consultation to review a treatment plan.').waitFor();
    });

    it('uploads the plan, computes it on the worker and shows the chart and the checks', async () => {
        await button(page, 'Connect to Cara').click();
        const dialog = page.getByRole('dialog', { name: 'Patient consent' });
        await button(dialog, 'The patient agrees: start').click();
        await dialog.waitFor({ state: 'detached' });
        await page
            .getByTestId('console-status')
            .filter({ hasText: 'Connected to Cara. You can now give voice commands.' })
            .waitFor();
        // A file that is not DICOM: refused, naming it.
        await page.getByTestId('plan-file-rtstruct').setInputFiles(path.join(PLAN_DIR, 'notes.txt'));
        await page.getByTestId('plan-file-rtdose').setInputFiles(path.join(PLAN_DIR, 'rtdose.dcm'));
        await page.getByTestId('plan-compute').click();
        await page.getByTestId('plan-error').filter({ hasText: 'notes.txt: this is not a DICOM file.' }).waitFor();
        for (const kind of ['rtstruct', 'rtdose', 'rtplan']) {
            await page.getByTestId(`plan-file-${kind}`).setInputFiles(path.join(PLAN_DIR, `${kind}.dcm`));
        }
        await page.getByTestId('plan-compute').click();
        const result = page.getByTestId('plan-result');
        await result.waitFor({ timeout: 3 * TIMEOUT });
        await result.getByText('Fractions: 5').waitFor();
        const curves = await page.locator('[data-testid="dvh-chart"] polyline').evaluateAll(lines =>
            lines.map(line => ({ name: line.dataset.structure, points: line.getAttribute('points').split(' ').length })),
        );
        assert.deepEqual(
            curves.map(c => c.name),
            ['Spinal Cord', 'Heart', 'PTV_30'],
        );
        assert.ok(curves.every(c => c.points === 101), JSON.stringify(curves));
        const rows = await page.locator('[data-testid="plan-checks"] tbody tr').evaluateAll(rows =>
            rows.map(row => [row.querySelector('th').textContent, row.children[1].textContent, row.dataset.status]),
        );
        assert.deepEqual(rows, [
            ['Spinal Cord', 'Dmax', 'fail'],
            ['Heart', 'V25', 'fail'],
        ]);
        await page.getByTestId('plan-structures').getByText('PTV_30').waitFor();
        await assertAccessible(page, 'plan review with its table');
        await screenshot(page, 'plan-review-computed');
    });

    it("recomputes with the physicist's correction of a structure's organ", async () => {
        // The heart's structure corrected to no organ: only the cord is checked.
        const heart = page.getByLabel('Organ of Heart');
        assert.equal(await heart.inputValue(), 'heart');
        await heart.selectOption('');
        await page.locator('[data-testid="plan-checks"] tbody tr').nth(1).waitFor({ state: 'detached', timeout: 3 * TIMEOUT });
        await page.getByTestId('plan-result').waitFor();
        const rows = await page.locator('[data-testid="plan-checks"] tbody tr').evaluateAll(rows =>
            rows.map(row => row.querySelector('th').textContent),
        );
        assert.deepEqual(rows, ['Spinal Cord']);
        assert.equal(await page.getByLabel('Organ of Heart').inputValue(), '');
    });

    it('fits a phone (390 px): no page-wide horizontal scroll, the tables scroll in their own box', async () => {
        const phone = await openBrowser({ args: MEDIA_ARGS, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
        try {
            await signInAs(phone.page, FIXTURES.radiotherapist, 'doctor', '/radiotherapist');
            await phone.page.getByTestId('plan-review').getByRole('heading', { name: 'Plan review (DVH)' }).waitFor();
            const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
            await screenshot(phone.page, 'plan-review-phone');
        } finally {
            await phone.close();
        }
    });

    it('reads in Arabic', async () => {
        await page.evaluate(() => localStorage.setItem('locale', 'ar'));
        await page.goto(url('/radiotherapist'));
        await page.getByTestId('plan-review').getByRole('heading', { name: 'مراجعة الخطة (مخطط الجرعة والحجم)' }).waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        await page.evaluate(() => localStorage.setItem('locale', 'en'));
    });
});
