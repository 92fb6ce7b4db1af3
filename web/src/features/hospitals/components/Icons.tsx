import type { ReactNode } from 'react';

/** Line icons of the doctor tables (decorative: the buttons carry the names). */
const Svg = ({ children }: { children: ReactNode }) => (
    <svg
        viewBox="0 0 24 24"
        width="18"
        height="18"
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

export const EditIcon = () => (
    <Svg>
        <path d="M12 20h9" />
        <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </Svg>
);

export const PowerIcon = () => (
    <Svg>
        <path d="M12 2v10" />
        <path d="M18.4 6.6a9 9 0 1 1-12.8 0" />
    </Svg>
);

export const TrashIcon = () => (
    <Svg>
        <path d="M3 6h18" />
        <path d="M8 6V4h8v2" />
        <path d="M19 6l-1 14H6L5 6" />
        <path d="M10 11v6M14 11v6" />
    </Svg>
);

export const PlusIcon = () => (
    <Svg>
        <path d="M12 5v14M5 12h14" />
    </Svg>
);
