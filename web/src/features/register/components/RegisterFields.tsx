/**
 * The parts the doctor's and the hospital's registration forms have in
 * common: the password and its confirmation, the country and state, the
 * privacy consent with the submit button, and the link to the login page.
 * Each takes its fields' props from `useRegistrationForm().text`.
 */
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { COUNTRIES, countryOptions } from '@/config/countries';
import { PrivacyConsent } from './RegisterLayout';
import type { TextBinding } from './useRegistrationForm';

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

/** The end of the form: the privacy-policy consent and the submit button. */
export const ConsentAndSubmit = ({
    accepted,
    onAccept,
    error,
    busy,
}: {
    accepted: boolean;
    onAccept: (accepted: boolean) => void;
    error?: string;
    busy: boolean;
}) => {
    const { t } = useTranslation('register');
    return (
        <>
            <PrivacyConsent checked={accepted} onChange={onAccept} error={error} />
            <Button type="submit" className="btn-block" busy={busy}>
                {busy ? t('Registering...') : t('Register')}
            </Button>
        </>
    );
};

/** 'Already have an account? Log in', to the login page of the account's kind. */
export const LoginLink = ({ to }: { to: string }) => {
    const { t } = useTranslation('register');
    return (
        <p className="auth-links">
            <span>
                {t('Already have an account?')} <Link to={to}>{t('Log in')}</Link>
            </span>
        </p>
    );
};
