import { afterEach, describe, expect, it, vi } from 'vitest';

import { consultationStore, OfflineBuffer, reconnectDelay, MAX_RETRY_MS, SERVICE_RESTART, STORED_LINES } from './rejoin';

describe('reconnectDelay', () => {
    it('doubles from 0.5 s up to 15 s, jittered in the upper half of each step', () => {
        const low = (attempt: number) => reconnectDelay(attempt, 1006, () => 0);
        const high = (attempt: number) => reconnectDelay(attempt, 1006, () => 1);
        expect([1, 2, 3, 4].map(low)).toEqual([250, 500, 1000, 2000]);
        expect([1, 2, 3, 4].map(high)).toEqual([500, 1000, 2000, 4000]);
        expect(high(30)).toBe(MAX_RETRY_MS);
        expect(low(30)).toBe(MAX_RETRY_MS / 2);
    });

    it('never gives up: the hundredth attempt still has a delay', () => {
        expect(Number.isFinite(reconnectDelay(100))).toBe(true);
    });

    it('retries a draining replica (1012) at once, then backs off like any drop', () => {
        expect(reconnectDelay(1, SERVICE_RESTART, () => 1)).toBeLessThanOrEqual(250);
        expect(reconnectDelay(2, SERVICE_RESTART, () => 0)).toBe(500);
    });
});

describe('OfflineBuffer', () => {
    it('keeps frames in order up to its duration, dropping the oldest and counting them', () => {
        const buffer = new OfflineBuffer<number>(1000);
        for (let i = 0; i < 12; i++) buffer.push(i, 128);
        expect(buffer.durationMs).toBe(7 * 128);
        expect(buffer.droppedMs).toBe(5 * 128);
        expect(buffer.drain()).toEqual([5, 6, 7, 8, 9, 10, 11]);
        expect(buffer.size).toBe(0);
        expect(buffer.durationMs).toBe(0);
        expect(buffer.droppedMs).toBe(5 * 128); // still shown until cleared
        buffer.clear();
        expect(buffer.droppedMs).toBe(0);
    });
});

describe('consultationStore', () => {
    afterEach(() => vi.unstubAllGlobals());

    const fakeStorage = () => {
        const items = new Map<string, string>();
        return {
            getItem: (key: string) => items.get(key) ?? null,
            setItem: (key: string, value: string) => void items.set(key, value),
            removeItem: (key: string) => void items.delete(key),
            items,
        };
    };

    it('keeps one consultation per console, with the newest lines', () => {
        const storage = fakeStorage();
        vi.stubGlobal('window', { sessionStorage: storage });
        const radiology = consultationStore('radiology');
        const lines = Array.from({ length: STORED_LINES + 3 }, (_, i) => ({
            speaker: 'user' as const,
            text: `line ${i}`,
            at: '2026-01-01T00:00:00Z',
            seq: i,
        }));
        radiology.save({ consultationId: 'c-1', live: true, awake: false, lines });
        expect(consultationStore('cardiology').load()).toBeNull();
        const loaded = radiology.load();
        expect(loaded?.consultationId).toBe('c-1');
        expect(loaded?.live).toBe(true);
        expect(loaded?.awake).toBe(false);
        expect(loaded?.lines).toHaveLength(STORED_LINES);
        expect(loaded?.lines[0].text).toBe('line 3');
        radiology.clear();
        expect(radiology.load()).toBeNull();
    });

    it('ignores what it cannot read', () => {
        const storage = fakeStorage();
        vi.stubGlobal('window', { sessionStorage: storage });
        storage.setItem('cara.live.radiology', '{not json');
        expect(consultationStore('radiology').load()).toBeNull();
        storage.setItem('cara.live.radiology', JSON.stringify({ consultationId: 'c', lines: [{ speaker: 'x' }] }));
        expect(consultationStore('radiology').load()?.lines).toEqual([]);
    });
});
