/**
 * The control tray's icons: inline SVG (no icon font to download), drawn in
 * currentColor, always aria-hidden: every button has its own label.
 */
import type { ReactNode } from 'react';

const Svg = ({ children }: { children: ReactNode }) => (
    <svg
        viewBox="0 0 24 24"
        width="22"
        height="22"
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

export const MicIcon = ({ off = false }: { off?: boolean }) => (
    <Svg>
        <rect x="9" y="3" width="6" height="11" rx="3" />
        <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
        {off && <path d="M3 3l18 18" />}
    </Svg>
);

export const TranscriptIcon = () => (
    <Svg>
        <path d="M4 5h16v11H8l-4 4z" />
        <path d="M8 9h8M8 12h5" />
    </Svg>
);

export const SummaryIcon = () => (
    <Svg>
        <path d="M6 3h9l4 4v14H6z" />
        <path d="M9 11h7M9 15h7M9 7h3" />
    </Svg>
);

export const CameraIcon = ({ off = false }: { off?: boolean }) => (
    <Svg>
        <rect x="3" y="7" width="13" height="10" rx="2" />
        <path d="M16 11l5-3v8l-5-3" />
        {off && <path d="M3 3l18 18" />}
    </Svg>
);

export const ScreenIcon = () => (
    <Svg>
        <rect x="3" y="4" width="18" height="12" rx="2" />
        <path d="M8 20h8M12 16v4" />
    </Svg>
);

export const PowerIcon = () => (
    <Svg>
        <path d="M12 3v8" />
        <path d="M6.3 7.5a8 8 0 1 0 11.4 0" />
    </Svg>
);

export const SendIcon = () => (
    <Svg>
        <path d="M4 12l16-8-6 16-2-7z" />
    </Svg>
);
