/**
 * Meters fed by a Level (audio/level.ts). They write the level to a CSS
 * variable on their own element, so a meter updating every 25 ms does not
 * re-render anything.
 */
import { useEffect, useRef, type ReactNode } from 'react';

import type { Level } from '../audio/level';

export const useLevelVariable = <T extends HTMLElement>(level: Level, name = '--level') => {
    const ref = useRef<T>(null);
    useEffect(
        () =>
            level.subscribe(value => {
                ref.current?.style.setProperty(name, value.toFixed(3));
            }),
        [level, name],
    );
    return ref;
};

/** The tray's volume pulse: three bars that grow with the assistant's voice (spec §2). */
export const VolumePulse = ({ level, active }: { level: Level; active: boolean }) => {
    const ref = useLevelVariable<HTMLSpanElement>(level);
    return (
        <span
            ref={ref}
            className={`volume-pulse${active ? ' is-active' : ''}`}
            aria-hidden="true"
            data-testid="volume-pulse"
        >
            <span />
            <span />
            <span />
        </span>
    );
};

/** Any element whose `--level` follows a Level (the stage's orb, the mic button's ring). */
export const LevelBox = ({ level, className, children }: { level: Level; className: string; children?: ReactNode }) => {
    const ref = useLevelVariable<HTMLDivElement>(level);
    return (
        <div ref={ref} className={className} aria-hidden="true">
            {children}
        </div>
    );
};
