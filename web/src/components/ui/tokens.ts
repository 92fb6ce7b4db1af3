/**
 * Cara's design tokens: the one source of the brand's colours, type, spacing,
 * radius and elevation. tokens.css declares the same values as CSS custom
 * properties for the clinician app (tokens.test.ts keeps the two equal), and
 * the admin console builds its react-admin theme from this module, so both
 * read as one brand. Text on surfaces keeps at least 4.5:1 contrast in both
 * palettes.
 */
export type Palette = {
    bg: string;
    surface: string;
    surface2: string;
    text: string;
    muted: string;
    border: string;
    primary: string;
    primaryText: string;
    primaryHover: string;
    accent: string;
    danger: string;
    success: string;
    warning: string;
    info: string;
    focus: string;
    /** The live console's stage: deep whatever the theme, so video and the assistant orb read. */
    stage: string;
    stageText: string;
};

export const palettes: { light: Palette; dark: Palette } = {
    light: {
        bg: '#f4f7fa',
        surface: '#ffffff',
        surface2: '#e9eff5',
        text: '#142032',
        muted: '#4a5568',
        border: '#cfd8e3',
        primary: '#0b5cad',
        primaryText: '#ffffff',
        primaryHover: '#084a8c',
        accent: '#0f7b74',
        danger: '#b42318',
        success: '#146c2e',
        warning: '#8a5a00',
        info: '#0b5cad',
        focus: '#f59e0b',
        stage: '#0d1422',
        stageText: '#e8edf5',
    },
    dark: {
        bg: '#0f1623',
        surface: '#182233',
        surface2: '#202c40',
        text: '#e8edf5',
        muted: '#b3bfd1',
        border: '#34435c',
        primary: '#5aa7f0',
        primaryText: '#0b1522',
        primaryHover: '#82bdf5',
        accent: '#4fd1c5',
        danger: '#ff8a80',
        success: '#6fd68f',
        warning: '#f5c451',
        info: '#5aa7f0',
        focus: '#f59e0b',
        stage: '#0a101b',
        stageText: '#e8edf5',
    },
};

export const fontFamily =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans Arabic', sans-serif";

/** Type scale in rem. */
export const fontSize = { xs: 0.75, sm: 0.875, md: 1, lg: 1.25, xl: 1.75 } as const;

/** Spacing steps in rem. */
export const space = { 1: 0.25, 2: 0.5, 3: 0.75, 4: 1, 5: 1.5, 6: 2 } as const;

/** Corner radii in px. */
export const radius = { sm: 6, md: 10, lg: 16 } as const;

export const elevation = {
    1: '0 1px 2px rgb(15 23 42 / 8%), 0 4px 16px rgb(15 23 42 / 6%)',
    2: '0 8px 30px rgb(15 23 42 / 18%)',
} as const;

/** Below this width (px) the app shell folds its links behind a menu button. */
export const phoneBreakpoint = 768;
