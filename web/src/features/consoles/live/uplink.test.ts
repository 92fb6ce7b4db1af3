import { describe, expect, it } from 'vitest';

import { PAUSE_AT_MS, STEP_DOWN_AT_MS, STEP_HOLD_MS, STEP_UP_AFTER_MS, UplinkGovernor } from './uplink';

/** Feeds one delay a second (the server's ping rate) from `from` for `seconds`. */
const feed = (governor: UplinkGovernor, delayMs: number, seconds: number, from: number): number => {
    let now = from;
    for (let i = 0; i < seconds; i++) {
        governor.observe(delayMs, now);
        now += 1000;
    }
    return now;
};

describe('UplinkGovernor', () => {
    it('keeps full frames on a quick link', () => {
        const governor = new UplinkGovernor();
        feed(governor, 200, 60, 0);
        expect(governor.level).toBe('full');
    });

    it('steps down to small frames, then to none, as the delay stays high', () => {
        const governor = new UplinkGovernor();
        expect(governor.observe(STEP_DOWN_AT_MS, 0)).toBe('low');
        expect(governor.observe(STEP_DOWN_AT_MS, STEP_HOLD_MS - 1)).toBe('low'); // the link drains first
        expect(governor.observe(STEP_DOWN_AT_MS, STEP_HOLD_MS)).toBe('paused');
    });

    it('pauses the camera at once on a long delay', () => {
        const governor = new UplinkGovernor();
        expect(governor.observe(PAUSE_AT_MS, 0)).toBe('paused');
    });

    it('comes back one step at a time once the link has been quick for a while', () => {
        const governor = new UplinkGovernor();
        governor.observe(PAUSE_AT_MS, 0);
        let now = feed(governor, 200, STEP_UP_AFTER_MS / 1000, 1000);
        expect(governor.level).toBe('paused');
        governor.observe(200, now);
        expect(governor.level).toBe('low');
        now = feed(governor, 200, STEP_UP_AFTER_MS / 1000, now + 1000);
        governor.observe(200, now);
        expect(governor.level).toBe('full');
    });

    it('holds while the delay is between the thresholds, and a new spike restarts the wait', () => {
        const governor = new UplinkGovernor();
        governor.observe(PAUSE_AT_MS, 0);
        let now = feed(governor, 600, 30, 1000);
        expect(governor.level).toBe('paused');
        now = feed(governor, 200, 5, now);
        governor.observe(STEP_DOWN_AT_MS, now);
        now = feed(governor, 200, STEP_UP_AFTER_MS / 1000 - 1, now + 1000);
        expect(governor.level).toBe('paused');
    });

    it('waits longer before each step up that the link had to undo', () => {
        const governor = new UplinkGovernor();
        governor.observe(PAUSE_AT_MS, 0);
        let now = feed(governor, 200, STEP_UP_AFTER_MS / 1000 + 1, 1000);
        expect(governor.level).toBe('low');
        governor.observe(PAUSE_AT_MS, now); // the small frames were too much as well
        expect(governor.level).toBe('paused');
        now = feed(governor, 200, STEP_UP_AFTER_MS / 1000 + 1, now + 1000);
        expect(governor.level).toBe('paused'); // 20 s this time
        now = feed(governor, 200, STEP_UP_AFTER_MS / 1000, now);
        expect(governor.level).toBe('low');
    });
});
