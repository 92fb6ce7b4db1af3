import { describe, expect, it } from 'vitest';

import { CHART, niceMax, polyline } from './chart';

describe('DVH chart geometry', () => {
    it('rounds the dose axis up to 1, 2 or 5 times a power of ten', () => {
        expect(niceMax(14.68)).toBe(20);
        expect(niceMax(3.09)).toBe(5);
        expect(niceMax(60)).toBe(100);
        expect(niceMax(0)).toBe(1);
    });

    it('puts 100 % at the top of the plot and the axis dose at its right edge', () => {
        const points = polyline(
            [
                [0, 100],
                [10, 50],
                [20, 0],
            ],
            20,
        ).split(' ');
        expect(points[0]).toBe(`${CHART.left.toFixed(1)},${CHART.top.toFixed(1)}`);
        const bottom = CHART.height - CHART.bottom;
        expect(points[2]).toBe(`${(CHART.width - CHART.right).toFixed(1)},${bottom.toFixed(1)}`);
        const middle = (CHART.top + bottom) / 2;
        expect(points[1]?.endsWith(`,${middle.toFixed(1)}`)).toBe(true);
    });
});
