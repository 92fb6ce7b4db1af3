/**
 * Cara's logo mark: a rounded square in the brand colour holding a white
 * cross whose arms end in a speech-bubble tail (care + conversation). Drawn
 * in currentColor-free SVG with token colours, so it follows the theme.
 */
export const LogoMark = ({ size = 32, title }: { size?: number; title?: string }) => (
    <svg
        className="logo-mark"
        width={size}
        height={size}
        viewBox="0 0 32 32"
        role={title ? 'img' : undefined}
        aria-hidden={title ? undefined : true}
        aria-label={title}
        focusable="false"
    >
        <rect className="logo-mark-tile" x="1" y="1" width="30" height="30" rx="9" />
        <path
            className="logo-mark-cross"
            d="M13 7.5h6v5.5h5.5v6H19v5.5l-3 2.5-3-2.5V19H7.5v-6H13z"
        />
    </svg>
);

/** The mark with the word "Cara" beside it (sign-in and registration pages). */
export const Logo = ({ size = 40 }: { size?: number }) => (
    <span className="logo" data-testid="logo">
        <LogoMark size={size} />
        <span className="logo-word">Cara</span>
    </span>
);
