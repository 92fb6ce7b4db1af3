import type { ReactNode, RefObject } from 'react';
import { Trans, useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Checkbox } from '@/components/ui/Field';
import { Logo } from '@/components/ui/Logo';
import { paths } from '@/config/paths';
import type { Failure } from './useRegistrationForm';

import '../register.css';

/** The card every registration screen sits in; the title is the page's only h1. */
export const RegisterPage = ({
    title,
    subtitle,
    wide = true,
    children,
}: {
    title: string;
    subtitle?: string;
    /** Two columns of fields; the short admin form reads better narrow. */
    wide?: boolean;
    children: ReactNode;
}) => (
    <main className="auth-page">
        <div className={`card auth-card${wide ? ' auth-card-wide' : ''}`}>
            <Logo />
            <h1>{title}</h1>
            {subtitle && <p className="auth-subtitle">{subtitle}</p>}
            {children}
        </div>
    </main>
);

/** A titled group of fields (fieldset + legend, so the group is announced). */
export const FormSection = ({ legend, children }: { legend: string; children: ReactNode }) => (
    <fieldset className="register-section">
        <legend>{legend}</legend>
        <div className="form-grid">{children}</div>
    </fieldset>
);

/** The inline copy of a failed registration (the toast disappears, this stays). */
export const FailureAlert = ({
    failure,
    anchor,
    onClose,
}: {
    failure: Failure | null;
    anchor: RefObject<HTMLDivElement | null>;
    onClose: () => void;
}) => {
    return (
        <div ref={anchor}>
            {failure && (
                <Alert kind="error" onClose={onClose}>
                    {failure.message && <p data-testid="register-error">{failure.message}</p>}
                    {failure.details.map(detail => (
                        <p key={detail}>{detail}</p>
                    ))}
                </Alert>
            )}
        </div>
    );
};

/** A link to a legal page in a new tab, saying so to screen readers. */
const NewTabLink = ({ href, children }: { href: string; children?: ReactNode }) => {
    const { t } = useTranslation('register');
    return (
        <a href={href} target="_blank" rel="noopener noreferrer">
            {children}
            <span className="visually-hidden">{t('(opens in a new tab)')}</span>
        </a>
    );
};

/** The privacy-policy consent checkbox, linking to /privacy-policy in a new tab (spec §2). */
export const PrivacyConsent = ({
    checked,
    onChange,
    error,
}: {
    checked: boolean;
    onChange: (checked: boolean) => void;
    error?: string;
}) => {
    const { t } = useTranslation('register');
    return (
        <Checkbox
            name="privacyPolicyAccepted"
            checked={checked}
            onChange={event => onChange(event.target.checked)}
            error={error}
            required
            label={
                <Trans
                    t={t}
                    i18nKey="I have read and accept the <page>{{policy}}</page>"
                    values={{ policy: t('Privacy Policy') }}
                    components={{ page: <NewTabLink href={paths.privacyPolicy} /> }}
                />
            }
        />
    );
};
