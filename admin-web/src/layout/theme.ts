import createCache, { type EmotionCache } from '@emotion/cache';
import { defaultDarkTheme, defaultLightTheme, type RaThemeOptions } from 'react-admin';

export type Direction = 'ltr' | 'rtl';

export const themesFor = (direction: Direction): { light: RaThemeOptions; dark: RaThemeOptions } => ({
    light: { ...defaultLightTheme, direction },
    dark: { ...defaultDarkTheme, direction },
});

export const ltrCache: EmotionCache = createCache({ key: 'mui' });

let rtlCache: Promise<EmotionCache> | undefined;

/**
 * MUI flips margins, paddings and positions for right-to-left only through a
 * stylis plugin. It is loaded the first time Arabic is chosen, so the others
 * never download it.
 */
export const loadRtlCache = (): Promise<EmotionCache> => {
    rtlCache ??= Promise.all([import('stylis'), import('stylis-plugin-rtl')]).then(
        ([{ prefixer }, { default: rtlPlugin }]) =>
            createCache({ key: 'muirtl', stylisPlugins: [prefixer, rtlPlugin] }),
    );
    return rtlCache;
};
