import type { ReactNode } from 'react';

/**
 * The app's line icons: inline SVG (no icon font to download), drawn in
 * currentColor on a 24-unit grid and always aria-hidden, because every button
 * or heading they sit in carries its own text. `size` is in CSS pixels.
 */
export interface IconProps {
    size?: number;
}

const Svg = ({ size = 18, children }: IconProps & { children: ReactNode }) => (
    <svg
        viewBox="0 0 24 24"
        width={size}
        height={size}
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
    >
        {children}
    </svg>
);

// Table actions and buttons.

export const EditIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M12 20h9" />
        <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </Svg>
);

export const TrashIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M3 6h18" />
        <path d="M8 6V4h8v2" />
        <path d="M19 6l-1 14H6L5 6" />
        <path d="M10 11v6M14 11v6" />
    </Svg>
);

export const PlusIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M12 5v14M5 12h14" />
    </Svg>
);

export const PowerIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M12 3v8" />
        <path d="M6.3 7.5a8 8 0 1 0 11.4 0" />
    </Svg>
);

// The live console's control tray.

export const MicIcon = ({ off = false, size }: IconProps & { off?: boolean }) => (
    <Svg size={size}>
        <rect x="9" y="3" width="6" height="11" rx="3" />
        <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
        {off && <path d="M3 3l18 18" />}
    </Svg>
);

export const TranscriptIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M4 5h16v11H8l-4 4z" />
        <path d="M8 9h8M8 12h5" />
    </Svg>
);

export const SummaryIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M6 3h9l4 4v14H6z" />
        <path d="M9 11h7M9 15h7M9 7h3" />
    </Svg>
);

export const CameraIcon = ({ off = false, size }: IconProps & { off?: boolean }) => (
    <Svg size={size}>
        <rect x="3" y="7" width="13" height="10" rx="2" />
        <path d="M16 11l5-3v8l-5-3" />
        {off && <path d="M3 3l18 18" />}
    </Svg>
);

/** Signal bars: full, or one bar for a slow link. */
export const SignalIcon = ({ low = false, size }: IconProps & { low?: boolean }) => (
    <Svg size={size}>
        <path d="M4 20v-3" />
        {!low && <path d="M9 20v-7" />}
        {!low && <path d="M14 20v-11" />}
        {!low && <path d="M19 20v-15" />}
        {low && <path d="M9 20v-7M14 20v-11M19 20v-15" strokeOpacity="0.3" />}
    </Svg>
);

export const ScreenIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <rect x="3" y="4" width="18" height="12" rx="2" />
        <path d="M8 20h8M12 16v4" />
    </Svg>
);

export const SendIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <path d="M4 12l16-8-6 16-2-7z" />
    </Svg>
);

// Dashboard cards.

export const PatientsIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <circle cx="9" cy="8" r="3.5" />
        <path d="M2.5 20c.8-3.6 3.4-5.5 6.5-5.5s5.7 1.9 6.5 5.5" />
        <path d="M16 4.8a3.3 3.3 0 0 1 0 6.4M18 14.8c2 .7 3.2 2.5 3.6 5.2" />
    </Svg>
);

export const CalendarIcon = ({ size }: IconProps) => (
    <Svg size={size}>
        <rect x="3" y="4.5" width="18" height="16" rx="2" />
        <path d="M3 9.5h18M8 2.5v4M16 2.5v4M7.5 14h3M13.5 14h3M7.5 17.5h3" />
    </Svg>
);
