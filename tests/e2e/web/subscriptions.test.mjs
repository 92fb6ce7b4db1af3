// Subscription screens in Chromium against the real API and the project's
// Stripe double (started for the test session by tests/conftest.py): the
// doctor's plans at both billing cycles with their prices, checkout on the
// double's hosted page with the test card, the success page ('Subscription
// Activated!' once confirm-session has synced the subscription, since the
// double does not push webhooks in this setup), and the hospital's plan page
// with its selection modal, savings badge, a declined card, then a payment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { assertAccessible, FIXTURES, openBrowser, screenshot, signInAs, TIMEOUT, url, waitForPath } from './lib.mjs';

const usd = amount =>
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 }).format(amount);
const heading = (page, name) => page.getByRole('heading', { level: 1, name });
const button = (scope, name) => scope.getByRole('button', { name, exact: true });
/** The plan card titled `name` in `scope` (the page or a dialog); `has` is relative to the card. */
const planCard = (scope, name) =>
    scope.getByTestId('plan-card').filter({
        has: (scope.page?.() ?? scope).getByRole('heading', { level: 3, name, exact: true }),
    });

const getJson = async (route, token) => {
    const response = await fetch(url(route), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200, `${route}: ${response.status}`);
    return response.json();
};

/** Until entrance animations end: axe measures contrast through a fading-in dialog's opacity. */
const settled = page =>
    page.evaluate(() => Promise.all(document.getAnimations().map(animation => animation.finished)));

/** On the double's hosted checkout page: enter a card and pay. */
const payOnCheckout = async (page, card) => {
    await page.waitForURL(current => new URL(current).pathname.startsWith('/checkout/'), { timeout: TIMEOUT });
    await page.getByText('TEST MODE').waitFor();
    await page.getByLabel('Card number').fill(card);
    await page.getByRole('button', { name: 'Pay and subscribe' }).click();
};

describe('subscription screens', () => {
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

    it('lists the doctor plans with monthly and annual prices', async () => {
        const session = await signInAs(page, FIXTURES.checkoutDoctor, 'doctor', '/doctor-subscription');
        const plans = await getJson('/api/subscription/plans/doctor', session.token);
        assert.ok(plans.length >= 2, 'seeded doctor plans');

        await heading(page, 'Available Plans').waitFor();
        await page.getByTestId('test-payments').waitFor();
        for (const plan of plans) {
            const card = planCard(page, plan.name);
            assert.equal((await card.getByTestId('plan-price').textContent()).trim(), usd(plan.price));
            await button(card, 'Choose Plan (Monthly)').waitFor();
        }
        await assertAccessible(page, 'doctor subscription (monthly)');

        await page.getByRole('button', { name: /^Annual/ }).click();
        assert.equal(await page.getByRole('button', { name: /^Annual/ }).getAttribute('aria-pressed'), 'true');
        await page.getByText('Save 15%').waitFor();
        for (const plan of plans) {
            const card = planCard(page, plan.name);
            // Without its own annual price a plan costs 12 months less 15% (spec §3).
            const annual = plan.annualPrice ?? Math.round(plan.price * 12 * 0.85 * 100) / 100;
            assert.equal((await card.getByTestId('plan-price').textContent()).trim(), usd(annual));
            await button(card, 'Choose Plan (Annual)').waitFor();
        }
        await screenshot(page, 'doctor-subscription');
        await assertAccessible(page, 'doctor subscription (annual)');
    });

    it('checks a doctor out on the Stripe double and activates the plan', async () => {
        await page.getByRole('button', { name: /^Monthly/ }).click();
        const [first] = await page.getByTestId('plan-card').getByRole('heading', { level: 3 }).allTextContents();
        await button(planCard(page, first), 'Choose Plan (Monthly)').click();

        const dialog = page.getByRole('dialog', { name: 'Confirm Subscription' });
        await dialog.waitFor();
        assert.equal(await dialog.getAttribute('aria-modal'), 'true');
        await dialog.getByText(`Proceed to checkout for the ${first} plan (monthly billing)?`).waitFor();
        // Focus moved into the dialog; Escape closes it.
        assert.ok(await dialog.evaluate(node => node.contains(document.activeElement)));
        await settled(page);
        await assertAccessible(page, 'confirm subscription dialog');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        await button(planCard(page, first), 'Choose Plan (Monthly)').click();
        await button(dialog, 'Proceed to Checkout').click();
        await payOnCheckout(page, '4242 4242 4242 4242');

        await waitForPath(page, '/subscription-success');
        await heading(page, 'Subscription Activated!').waitFor({ timeout: 30_000 });
        await page.getByText(`Your ${first} plan is now active.`).waitFor();
        await page.getByTestId('confetti').waitFor();
        assert.equal(await page.evaluate(() => localStorage.getItem('subscriptionRole')), 'doctor');
        assert.equal(await page.evaluate(() => sessionStorage.getItem('subscriptionBillingCycle')), null);
        await screenshot(page, 'subscription-success');
        await assertAccessible(page, 'subscription success');

        await button(page, 'Go to Dashboard').click();
        await waitForPath(page, '/doctor-dashboard');
        assert.equal(await page.evaluate(() => localStorage.getItem('subscriptionRole')), null);

        // The plans page now shows the active plan, and switching replaces choosing.
        await page.goto(url('/doctor-subscription'));
        await heading(page, 'Change Your Plan').waitFor();
        await page.getByText('Current Active Plan').waitFor();
        await button(planCard(page, first), 'Current Plan').waitFor();
        assert.ok(await button(planCard(page, first), 'Current Plan').isDisabled());
        await page.getByRole('button', { name: 'Switch Plan (Monthly)' }).first().waitFor();
    });

    it('explains a missing session id on the success page', async () => {
        await page.goto(url('/subscription-success'));
        await heading(page, 'Confirmation Failed').waitFor();
        await page.getByText('Missing session ID. Cannot confirm subscription.').waitFor();
    });

    it('lets a hospital without a plan choose one and pay for it', async () => {
        const session = await signInAs(page, FIXTURES.checkoutHospital, 'hospital', '/subscription');
        const plans = await getJson('/api/subscription/plans/hospital', session.token);
        const bronze = plans.find(plan => plan.name === 'Bronze') ?? plans[0];

        await heading(page, 'Subscription Management').waitFor();
        await page.getByText('You do not have an active subscription plan.').waitFor();
        await screenshot(page, 'hospital-subscription');
        await assertAccessible(page, 'hospital subscription (no plan)');

        await button(page, 'Choose a Plan').click();
        const modal = page.getByRole('dialog', { name: 'Choose Your Subscription Plan' });
        await modal.waitFor();
        await planCard(modal, bronze.name).waitFor();
        await modal.getByText('Save up to 20% with annual billing').waitFor();
        assert.equal(
            (await planCard(modal, bronze.name).getByTestId('plan-price').textContent()).trim(),
            usd(bronze.price),
        );
        await planCard(modal, bronze.name).getByText(`Up to ${bronze.maxDoctors} doctors`).waitFor();

        await modal.getByRole('switch').check();
        await modal.getByRole('switch', { name: 'Annual Billing' }).waitFor();
        const card = planCard(modal, bronze.name);
        assert.equal((await card.getByTestId('plan-price').textContent()).trim(), usd(bronze.annualPrice));
        const savings = Math.round((bronze.price * 12 - bronze.annualPrice) * 100) / 100;
        assert.ok(savings > 0, 'the seeded annual price is a saving');
        assert.equal((await card.getByTestId('savings').textContent()).trim(), `Save ${usd(savings)} per year`);
        await settled(page);
        await screenshot(page, 'plan-modal');
        await assertAccessible(page, 'plan selection modal');

        await button(card, 'Select Plan').click();
        const confirm = page.getByRole('dialog', { name: 'Confirm Subscription Change' });
        await confirm.waitFor();
        await confirm.getByText(`Save ${usd(savings)} per year`).waitFor();
        await button(confirm, 'Cancel').click();
        await modal.waitFor();
        await button(planCard(modal, bronze.name), 'Select Plan').click();
        await button(confirm, 'Proceed to Payment').click();

        // A declined card keeps the session open and the hospital unsubscribed.
        await payOnCheckout(page, '4000 0000 0000 0002');
        await page.getByRole('alert').getByText(/declined/i).waitFor();
        const still = await getJson('/api/subscription/current', session.token);
        assert.notEqual(still.status, 'active');

        await page.getByLabel('Card number').fill('4242 4242 4242 4242');
        await page.getByRole('button', { name: 'Pay and subscribe' }).click();
        await waitForPath(page, '/subscription-success');
        await heading(page, 'Subscription Activated!').waitFor({ timeout: 30_000 });
        await page.getByText(`Your ${bronze.name} plan is now active.`).waitFor();
        await button(page, 'Go to Dashboard').click();
        await waitForPath(page, '/dashboard');

        await page.goto(url('/subscription'));
        await heading(page, 'Subscription Management').waitFor();
        await page.getByTestId('plan-badge').getByText(bronze.name).waitFor();
        await page.getByText('Annual', { exact: true }).waitFor();
        await button(page, 'Change Plan').waitFor();
        await button(page, 'Manage billing').waitFor();
        assert.equal(await page.getByText('N/A').count(), 0, 'start and renewal dates are known');
        await assertAccessible(page, 'hospital subscription (active)');
    });
});
