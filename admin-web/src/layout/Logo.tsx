import { palettes } from '@cara/tokens';

/**
 * Cara's logo mark, the same drawing as the clinician app's (web
 * components/ui/Logo): a brand tile with a white cross ending in a
 * speech-bubble tail. `inverse` draws it on the brand-coloured app bar.
 */
export const LogoMark = ({ size = 32, inverse = false }: { size?: number; inverse?: boolean }) => (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false" data-testid="logo">
        <rect x="1" y="1" width="30" height="30" rx="9" fill={inverse ? '#ffffff' : palettes.light.primary} />
        <path
            d="M13 7.5h6v5.5h5.5v6H19v5.5l-3 2.5-3-2.5V19H7.5v-6H13z"
            fill={inverse ? palettes.light.primary : '#ffffff'}
        />
    </svg>
);
