import { useEffect, useState, type RefObject } from 'react';

/**
 * Long lists stay smooth: above this many rows, only the rows near the
 * viewport are in the page and spacers of the same height stand for the rest
 * ("Load more" lists: consultations, the security log). Below it, every row is
 * rendered as before.
 */
export const WINDOW_ABOVE = 200;
// Rows kept beyond each edge of the viewport, so a fast scroll does not show the gap.
const OVERSCAN = 30;

export interface RowWindow {
    /** Rows [start, end) are rendered. */
    start: number;
    end: number;
    /** Heights (px) of the spacers before and after them. */
    before: number;
    after: number;
}

/**
 * The rows to render of `count` rows of `pitch` px each (distance from one
 * row's top to the next), for a list whose top is `listTop` px from the top of
 * a viewport `viewport` px high (negative once scrolled past).
 */
export const rowWindow = (count: number, pitch: number, listTop: number, viewport: number): RowWindow => {
    if (count <= WINDOW_ABOVE || pitch <= 0) return { start: 0, end: count, before: 0, after: 0 };
    const firstVisible = Math.floor(Math.max(0, -listTop) / pitch);
    const start = Math.min(count, Math.max(0, firstVisible - OVERSCAN));
    const end = Math.min(count, firstVisible + Math.ceil(viewport / pitch) + OVERSCAN);
    return { start, end: Math.max(start, end), before: start * pitch, after: (count - Math.max(start, end)) * pitch };
};

/**
 * rowWindow for a list on the page: `list` is its element, `rowSelector`
 * matches its rendered rows (their spacing is measured); follows scrolling and
 * resizing of the window.
 */
export const useRowWindow = (count: number, list: RefObject<HTMLElement | null>, rowSelector: string): RowWindow => {
    const windowed = count > WINDOW_ABOVE;
    const [layout, setLayout] = useState({ pitch: 0, listTop: 0, viewport: 0 });

    useEffect(() => {
        if (!windowed) return undefined;
        let frame = 0;
        const measure = () => {
            frame = 0;
            const element = list.current;
            if (!element) return;
            const rows = element.querySelectorAll<HTMLElement>(rowSelector);
            setLayout(current => {
                let pitch = current.pitch;
                if (rows.length > 1) {
                    const first = rows[0].getBoundingClientRect().top;
                    const last = rows[rows.length - 1].getBoundingClientRect().top;
                    pitch = (last - first) / (rows.length - 1);
                }
                const next = { pitch, listTop: element.getBoundingClientRect().top, viewport: window.innerHeight };
                const same =
                    Math.abs(next.pitch - current.pitch) < 0.5 &&
                    Math.abs(next.listTop - current.listTop) < 1 &&
                    next.viewport === current.viewport;
                return same ? current : next;
            });
        };
        const schedule = () => {
            frame ||= requestAnimationFrame(measure);
        };
        schedule();
        window.addEventListener('scroll', schedule, { passive: true });
        window.addEventListener('resize', schedule);
        return () => {
            cancelAnimationFrame(frame);
            window.removeEventListener('scroll', schedule);
            window.removeEventListener('resize', schedule);
        };
    }, [windowed, count, list, rowSelector]);

    // Until the rows have been measured, the first WINDOW_ABOVE of them.
    if (windowed && layout.pitch <= 0) return { start: 0, end: WINDOW_ABOVE, before: 0, after: 0 };
    return rowWindow(count, layout.pitch, layout.listTop, layout.viewport);
};
