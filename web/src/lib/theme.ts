import { useCallback, useEffect, useState } from 'react';

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
    useEffect(() => {
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
