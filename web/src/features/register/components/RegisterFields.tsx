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
    submission: { busy, failure, failureRef, formRef, dismissFailure },
    onSubmit,
    consent,
    loginTo,
    children,
}: RegisterFormProps) => {
    const { t } = useTranslation('register');
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
