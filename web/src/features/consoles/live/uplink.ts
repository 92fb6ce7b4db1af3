/**
 * The uplink adapts to what the link carries, measured end to end: the server's pings say how
 * long its oldest unanswered ping has waited (`lag`) and the latest round trip (`rtt`), so a
 * pong stuck behind camera frames on a slow uplink shows within a second (`bufferedAmount`
 * does not: the frames wait in the network stack, not in the socket). Audio always goes; the
 * camera's frames step down as the delay grows (full → small frames → none, "camera paused")
 * and come back one step at a time once the link has been quick for a while.
 */
import { useEffect, useRef, useState } from 'react';

export type UplinkLevel = 'full' | 'low' | 'paused';

/** A delay this long (ms) steps the camera down one level (at most one step per STEP_HOLD_MS). */
export const STEP_DOWN_AT_MS = 800;
/** A delay this long pauses the camera at once. */
export const PAUSE_AT_MS = 2000;
/** After a step down, the next one waits this long (the link needs time to drain). */
export const STEP_HOLD_MS = 3000;
/** The delay must stay under this ... */
export const STEP_UP_BELOW_MS = 400;
/** ... for this long before the camera steps up one level; */
export const STEP_UP_AFTER_MS = 10_000;
/** doubled (up to this) each time a step up had to be undone soon after, so a link that cannot
 * carry the frames is not tried every 10 s. */
export const STEP_UP_AFTER_MAX_MS = 80_000;
const UNDONE_WITHIN_MS = 30_000;

const DOWN: Record<UplinkLevel, UplinkLevel> = { full: 'low', low: 'paused', paused: 'paused' };
const UP: Record<UplinkLevel, UplinkLevel> = { full: 'full', low: 'full', paused: 'low' };

/** The decisions, without React or timers: `observe` each measured delay. */
export class UplinkGovernor {
    level: UplinkLevel = 'full';
    private changedAt = -Infinity;
    private quickSince: number | null = null;
    private steppedUpAt = -Infinity;
    private upAfter = STEP_UP_AFTER_MS;

    observe(delayMs: number, now: number): UplinkLevel {
        if (delayMs >= PAUSE_AT_MS) {
            if (this.level !== 'paused') this.set('paused', now);
            this.quickSince = null;
        } else if (delayMs >= STEP_DOWN_AT_MS) {
            if (now - this.changedAt >= STEP_HOLD_MS && this.level !== 'paused') this.set(DOWN[this.level], now);
            this.quickSince = null;
        } else if (delayMs < STEP_UP_BELOW_MS) {
            this.quickSince ??= now;
            if (this.level !== 'full' && now - this.quickSince >= this.upAfter) {
                this.set(UP[this.level], now);
                this.steppedUpAt = now;
                this.quickSince = now;
            } else if (this.level === 'full' && now - this.steppedUpAt >= STEP_UP_AFTER_MAX_MS) {
                this.upAfter = STEP_UP_AFTER_MS; // the link has carried full frames for a while
            }
        } else {
            this.quickSince = null; // in between: hold
        }
        return this.level;
    }

    reset(): void {
        this.level = 'full';
        this.changedAt = -Infinity;
        this.quickSince = null;
        this.steppedUpAt = -Infinity;
        this.upAfter = STEP_UP_AFTER_MS;
    }

    private set(level: UplinkLevel, now: number): void {
        const down = level === 'paused' || (level === 'low' && this.level === 'full');
        if (down && now - this.steppedUpAt < UNDONE_WITHIN_MS)
            this.upAfter = Math.min(STEP_UP_AFTER_MAX_MS, this.upAfter * 2);
        this.level = level;
        this.changedAt = now;
    }
}

/** How often the latest measured delay is looked at (the server pings every second). */
const OBSERVE_MS = 500;

/** The camera's level for the measured delay (null: not measured yet on this socket). */
export const useUplink = (delayMs: number | null, connected: boolean): UplinkLevel => {
    const governor = useRef(new UplinkGovernor());
    const latest = useRef(delayMs);
    latest.current = delayMs;
    const [level, setLevel] = useState<UplinkLevel>('full');
    useEffect(() => {
        if (delayMs !== null && connected) setLevel(governor.current.observe(delayMs, Date.now()));
    }, [delayMs, connected]);
    useEffect(() => {
        if (!connected) {
            governor.current.reset();
            setLevel('full');
            return;
        }
        // An unchanged delay is news too: quick for long enough, the camera steps back up.
        const timer = window.setInterval(() => {
            if (latest.current !== null) setLevel(governor.current.observe(latest.current, Date.now()));
        }, OBSERVE_MS);
        return () => window.clearInterval(timer);
    }, [connected]);
    return level;
};
