// Both apps and the API documentation page under the server's Content-Security-Policy:
// each page renders, and the browser reports no violation (no inline script or style
// refused, nothing loaded from another site). Run by tests/e2e/test_security_headers.py.
//
//   BASE_URL  server origin (required)

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(new URL('../../../web/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const BASE_URL = process.env.BASE_URL.replace(/\/+$/, '');

const PAGES = [
    // [path, a selector that exists once the page has rendered]
    ['/', '#root *'],
    ['/doctor-login', 'input[type="password"]'],
    ['/admin/', 'input[type="password"]'],
    ['/api/docs', '.swagger-ui .opblock'],
];

for (const [path, rendered] of PAGES) {
    test(`${path} renders under the policy with no violation`, async () => {
        const browser = await chromium.launch({
            executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
        });
        try {
            const page = await browser.newPage();
            const violations = [];
            page.on('console', (msg) => {
                if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
            });
            await page.addInitScript(() => {
                document.addEventListener('securitypolicyviolation', (e) => {
                    window.__violations = window.__violations ?? [];
                    window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
                });
            });
            const response = await page.goto(BASE_URL + path, { waitUntil: 'networkidle' });
            assert.match(response.headers()['content-security-policy'], /frame-ancestors 'none'/);
            await page.waitForSelector(rendered, { timeout: 20_000 });
            const reported = await page.evaluate(() => window.__violations ?? []);
            assert.deepEqual([...violations, ...reported], []);
            // Stylesheets were applied: the body does not keep the browser's default 8px margin.
            const margin = await page.evaluate(() => getComputedStyle(document.body).margin);
            assert.notEqual(margin, '8px', 'the page looks unstyled');
            // CSS-in-JS rules (the admin console's) reached the page through the CSSOM.
            const rules = await page.evaluate(() =>
                [...document.styleSheets].reduce((n, sheet) => n + sheet.cssRules.length, 0),
            );
            assert.ok(rules > 20, `only ${rules} CSS rules applied`);
        } finally {
            await browser.close();
        }
    });
}
