/**
 * The parts the registration forms have in common: the form itself (the
 * failure alert above it, the privacy consent and the submit button at its
 * end, the link to the login page below it), the password and its
 * confirmation, the country and state. Fields take their props from
 * `useRegistrationForm().text` and `.checkbox`.
 */
import { useMemo, type FormEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { COUNTRIES, countryOptions } from '@/config/countries';
import { FailureAlert, PrivacyConsent } from './RegisterLayout';
import type { CheckBinding, Failure, TextBinding } from './useRegistrationForm';

/** What the form needs of `useRegistrationForm()`. */
interface Submission {
    busy: boolean;
    failure: Failure | null;
    failureRef: RefObject<HTMLDivElement | null>;
    formRef: RefObject<HTMLFormElement | null>;
    dismissFailure: () => void;
    /** Where the sign-up link was mailed, once the form was sent (then the form gives way). */
    linkSentTo?: string | null;
    startAgain?: () => void;
}

interface RegisterFormProps {
    submission: Submission;
    onSubmit: (event: FormEvent<HTMLFormElement>) => void;
    /** The privacy-policy checkbox (`checkbox('privacyPolicyAccepted')`). */
    consent: CheckBinding;
    /** The login page of the account's kind. */
    loginTo: string;
    /** The form's sections. */
    children: ReactNode;
}

/**
 * A self-registration form: its failure alert, its fields (`children`), the privacy-policy consent and the
 * submit button, then 'Already have an account? Log in' to the login page of the account's kind.
 */
export const RegisterForm = ({
    submission: { busy, failure, failureRef, formRef, dismissFailure, linkSentTo, startAgain },
    onSubmit,
    consent,
    loginTo,
    children,
}: RegisterFormProps) => {
    const { t } = useTranslation('register');
    if (linkSentTo) return <LinkSent email={linkSentTo} loginTo={loginTo} onStartAgain={startAgain} />;
    return (
        <>
            <FailureAlert failure={failure} anchor={failureRef} onClose={dismissFailure} />
            <form ref={formRef} onSubmit={onSubmit} noValidate>
                {children}
                <PrivacyConsent {...consent} />
                <Button type="submit" className="btn-block" busy={busy}>
                    {busy ? t('Registering...') : t('Register')}
                </Button>
            </form>
            <p className="auth-links">
                <span>
                    {t('Already have an account?')} <Link to={loginTo}>{t('Log in')}</Link>
                </span>
            </p>
        </>
    );
};

/**
 * After a self-registration: nothing is made until the mailed link is followed. The same words
 * whether the address was free or already had an account (its owner was mailed instead).
 */
const LinkSent = ({ email, loginTo, onStartAgain }: { email: string; loginTo: string; onStartAgain?: () => void }) => {
    const { t } = useTranslation('register');
    return (
        <section className="register-link-sent" data-testid="signup-link-sent" aria-live="polite">
            <h2>{t('Check your email')}</h2>
            <p>{t('We sent a link to {{email}}. Open it to finish creating your account.', { email })}</p>
            <p className="auth-subtitle">
                {t('The link works once, for 24 hours. Nothing arrived? Look in spam, or send the form again.')}
            </p>
            {onStartAgain && (
                <Button variant="secondary" className="btn-block" onClick={onStartAgain}>
                    {t('Send the form again')}
                </Button>
            )}
            <p className="auth-links">
                <span>
                    {t('Already have an account?')} <Link to={loginTo}>{t('Log in')}</Link>
                </span>
            </p>
        </section>
    );
};

/** The new password (with the form's rule as its hint) and its confirmation. */
export const PasswordFields = ({
    text,
    hint,
}: {
    text: (field: 'password' | 'confirmPassword') => TextBinding;
    hint: string;
}) => {
    const { t } = useTranslation('register');
    return (
        <>
            <TextField
                label={t('Password')}
                type="password"
                autoComplete="new-password"
                required
                hint={hint}
                {...text('password')}
            />
            <TextField
                label={t('Confirm Password')}
                type="password"
                autoComplete="new-password"
                required
                {...text('confirmPassword')}
            />
        </>
    );
};

/** The country (every form offers the same ones: Africa and the Caribbean) and the state or province. */
export const CountryAndState = ({ text }: { text: (field: 'country' | 'state') => TextBinding }) => {
    const { t, i18n } = useTranslation('register');
    const language = i18n.resolvedLanguage ?? 'en';
    const countries = useMemo(() => countryOptions(COUNTRIES, language), [language]);
    return (
        <>
            <SelectField
                label={t('Country')}
                autoComplete="country-name"
                required
                placeholder={t('Select your country')}
                options={countries}
                {...text('country')}
            />
            <TextField label={t('State/Province')} autoComplete="address-level1" required {...text('state')} />
        </>
    );
};
