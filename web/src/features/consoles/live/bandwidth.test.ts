import { describe, expect, it } from 'vitest';

import { HANGOVER_CHUNKS, networkIsSlow, rms, SilenceGate, SPEECH_LEVEL } from './bandwidth';

describe('networkIsSlow', () => {
    it('is slow on 2g/3g or when the user saves data', () => {
        expect(networkIsSlow({ effectiveType: '3g' })).toBe(true);
        expect(networkIsSlow({ effectiveType: 'slow-2g' })).toBe(true);
        expect(networkIsSlow({ effectiveType: '4g', saveData: true })).toBe(true);
        expect(networkIsSlow({ effectiveType: '4g' })).toBe(false);
        expect(networkIsSlow(undefined)).toBe(false);
    });
});

describe('SilenceGate', () => {
    const speech = SPEECH_LEVEL * 2;
    it('sends nothing for silence from the start, without a pause signal', () => {
        const gate = new SilenceGate<number>();
        for (let i = 0; i < 20; i++) expect(gate.push(i, 0)).toEqual({ send: [], paused: false });
    });

    it('sends speech with the silent chunk before it and a hangover after it, then pauses once', () => {
        const gate = new SilenceGate<number>();
        gate.push(1, 0);
        gate.push(2, 0);
        expect(gate.push(3, speech).send).toEqual([2, 3]);
        for (let i = 0; i < HANGOVER_CHUNKS; i++) expect(gate.push(10 + i, 0)).toEqual({ send: [10 + i], paused: false });
        expect(gate.push(99, 0)).toEqual({ send: [], paused: true });
        expect(gate.push(100, 0)).toEqual({ send: [], paused: false });
        expect(gate.push(101, speech).send).toEqual([100, 101]);
    });

    it('measures PCM16 levels', () => {
        expect(rms(new Int16Array([0, 0]))).toBe(0);
        expect(rms(new Int16Array([0x4000, -0x4000]))).toBeCloseTo(0.5);
    });
});
