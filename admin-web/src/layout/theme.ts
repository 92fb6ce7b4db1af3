import createCache, { type EmotionCache } from '@emotion/cache';
import { fontFamily, palettes, radius, type Palette } from '@cara/tokens';
import { defaultDarkTheme, defaultLightTheme, type RaThemeOptions } from 'react-admin';

export type Direction = 'ltr' | 'rtl';

/**
 * The react-admin theme built from the clinician app's design tokens
 * (web/src/components/ui/tokens.ts): the same brand colours, surfaces, text,
 * type and corner radius, so the console and the app read as one product.
 */
const brand = (
    base: RaThemeOptions,
    mode: 'light' | 'dark',
    colours: Palette,
    direction: Direction,
    loadingLabel: string,
): RaThemeOptions => ({
    ...base,
    direction,
    palette: {
        mode,
        primary: { main: colours.primary, dark: colours.primaryHover, contrastText: colours.primaryText },
        secondary: { main: colours.accent, contrastText: mode === 'light' ? '#ffffff' : colours.primaryText },
        error: { main: colours.danger },
        warning: { main: colours.warning },
        success: { main: colours.success },
        info: { main: colours.info },
        background: { default: colours.bg, paper: colours.surface },
        text: { primary: colours.text, secondary: colours.muted },
        divider: colours.border,
    },
    shape: { borderRadius: radius.md },
    typography: { ...base.typography, fontFamily },
    components: {
        ...base.components,
        RaToolbar: { styleOverrides: { root: { backgroundColor: colours.surface2 } } },
        // Muted text at the brand's muted colour (4.5:1 or more), not MUI's translucent greys.
        MuiToggleButton: {
            styleOverrides: {
                root: {
                    color: colours.muted,
                    '&.Mui-selected, &.Mui-selected:hover': { color: colours.text, backgroundColor: colours.surface2 },
                },
            },
        },
        // Spinners are progress bars to assistive technology: they need a name.
        MuiCircularProgress: { defaultProps: { 'aria-label': loadingLabel } },
        RaEmpty: { styleOverrides: { root: { '& .RaEmpty-message': { color: colours.muted } } } },
        // A wide list scrolls inside its card; the page itself never scrolls sideways
        // (react-admin's layout otherwise grows to its widest table).
        RaLayout: { styleOverrides: { root: { minWidth: 0, '& .RaLayout-content': { minWidth: 0 } } } },
        RaList: {
            styleOverrides: {
                root: { '& .RaList-main': { minWidth: 0 }, '& .RaList-content': { overflowX: 'auto' } },
            },
        },
    },
});

export const themesFor = (
    direction: Direction,
    loadingLabel = 'Loading',
): { light: RaThemeOptions; dark: RaThemeOptions } => ({
    light: brand(defaultLightTheme, 'light', palettes.light, direction, loadingLabel),
    dark: brand(defaultDarkTheme, 'dark', palettes.dark, direction, loadingLabel),
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
