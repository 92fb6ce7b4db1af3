import { describe, expect, it } from 'vitest';

import { rowWindow, WINDOW_ABOVE } from './rowWindow';

describe('rowWindow', () => {
    it('renders every row of a list up to the threshold', () => {
        expect(rowWindow(WINDOW_ABOVE, 100, -5_000, 800)).toEqual({ start: 0, end: WINDOW_ABOVE, before: 0, after: 0 });
    });

    it('renders the rows near the viewport of a longer list, with spacers for the rest', () => {
        // 1,000 rows of 100 px, scrolled 50,000 px into the list: rows 500-507 are on screen.
        const window = rowWindow(1_000, 100, -50_000, 800);
        expect(window.start).toBe(470);
        expect(window.end).toBe(538);
        expect(window.before).toBe(47_000);
        expect(window.after).toBe(46_200);
        // The spacers and the rows make the list's full height.
        expect(window.before + (window.end - window.start) * 100 + window.after).toBe(100_000);
    });

    it('starts at the top and stops at the end', () => {
        expect(rowWindow(1_000, 100, 300, 800)).toMatchObject({ start: 0, before: 0 });
        const end = rowWindow(1_000, 100, -200_000, 800);
        expect(end).toMatchObject({ end: 1_000, after: 0 });
        expect(end.start).toBeLessThanOrEqual(end.end);
    });
});
