import { describe, expect, it } from 'vitest';

import { formatDuration } from './format';

describe('formatDuration', () => {
    it('writes minutes and seconds, and hours when there are some', () => {
        expect(formatDuration(0)).toBe('0:00');
        expect(formatDuration(61)).toBe('1:01');
        expect(formatDuration(3725)).toBe('1:02:05');
    });

    it('says nothing for an unknown or impossible length', () => {
        expect(formatDuration(null)).toBe('');
        expect(formatDuration(undefined)).toBe('');
        expect(formatDuration(-5)).toBe('');
        expect(formatDuration(Number.NaN)).toBe('');
    });
});
