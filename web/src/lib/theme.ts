import { useCallback, useEffect, useLayoutEffect, useState } from 'react';

/** Light/dark theme under localStorage `theme`, default light (spec §2 "Other"). */
export type Theme = 'light' | 'dark';
const THEME_KEY = 'theme';

const readTheme = (): Theme => {
    try {
        return localStorage.getItem(THEME_KEY) === 'dark' ? 'dark' : 'light';
    } catch {
        return 'light';
    }
};

export const useTheme = (): [Theme, () => void] => {
    const [theme, setTheme] = useState<Theme>(readTheme);
    // Before the browser paints: a passive effect waits for the next frame under preact/compat,
    // so a toggle (or a page's first render) showed a frame in the other theme.
    useLayoutEffect(() => {
        document.documentElement.dataset.theme = theme;
    }, [theme]);
    // A theme chosen in another tab of the app applies here too.
    useEffect(() => {
        const follow = (event: StorageEvent) => {
            if (event.key === THEME_KEY || event.key === null) setTheme(readTheme());
        };
        window.addEventListener('storage', follow);
        return () => window.removeEventListener('storage', follow);
    }, []);
    const toggle = useCallback(() => {
        setTheme(current => {
            const next = current === 'dark' ? 'light' : 'dark';
            try {
                localStorage.setItem(THEME_KEY, next);
            } catch {
                // not remembered, still applied
            }
            return next;
        });
    }, []);
    return [theme, toggle];
};
