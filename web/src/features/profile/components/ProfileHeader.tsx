import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** Initials of the first letters of up to two name words (as the navbar's avatar). */
const initials = (name: string): string =>
    name
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .slice(0, 2)
        .map(word => word[0]?.toUpperCase() ?? '')
        .join('');

/** The page title 'Profile' with the person's initials, name and role or specialty; actions at the end. */
export const ProfileHeader = ({
    name,
    subtitle,
    children,
}: {
    name: string;
    subtitle?: string;
    children?: ReactNode;
}) => {
    const { t } = useTranslation('doctor');
    return (
        <header className="page-header profile-header">
            <div className="profile-identity">
                <span className="profile-avatar" aria-hidden="true">
                    {initials(name)}
                </span>
                <div>
                    <h1>{t('Profile')}</h1>
                    <p className="profile-subtitle">
                        <span className="profile-person">{name}</span>
                        {subtitle && <span className="profile-role">{subtitle}</span>}
                    </p>
                </div>
            </div>
            {children && <div className="profile-actions">{children}</div>}
        </header>
    );
};
