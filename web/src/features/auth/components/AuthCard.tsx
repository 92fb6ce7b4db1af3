import type { ReactNode, Ref } from 'react';

import { Logo } from '@/components/ui/Logo';

/**
 * The centred card of the sign-in screens: the page's one h1 and an optional
 * subtitle. The heading takes focus from script (tabIndex -1) so a screen
 * that changes state in place can move focus to its new title.
 */
export const AuthCard = ({
    title,
    subtitle,
    headingRef,
    children,
}: {
    title: string;
    subtitle?: string;
    headingRef?: Ref<HTMLHeadingElement>;
    children: ReactNode;
}) => (
    <main className="auth-page">
        <div className="card auth-card">
            <Logo />
            <h1 ref={headingRef} tabIndex={-1}>
                {title}
            </h1>
            {subtitle && <p className="auth-subtitle">{subtitle}</p>}
            {children}
        </div>
    </main>
);
