import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { useToast } from '@/components/ui/Toasts';
import { COUNTRIES, countryOptions } from '@/config/countries';
import { paths } from '@/config/paths';
import type { SignupBody } from '../api';
import { FailureAlert, FormSection, PrivacyConsent, RegisterPage } from '../components/RegisterLayout';
import { useRegistrationForm } from '../components/useRegistrationForm';
import { EMPTY_HOSPITAL_FORM, parseCapacity, validateHospital, type HospitalForm } from '../validation';

type TextFieldName = 'name' | 'email' | 'phoneNumber' | 'address' | 'registrationNumber' | 'state' | 'website';

/**
 * /hospital-register (spec §2, §3, §5). A new hospital does not get signed
 * in: it is sent to /hospital-login with 'Registration successful! Please log in.'
 */
const HospitalRegister = () => {
    const { t, i18n } = useTranslation('register');
    const notify = useToast();
    const navigate = useNavigate();
    const { form, set, error, busy, failure, failureRef, formRef, submitWith, dismissFailure } =
        useRegistrationForm<HospitalForm>({
            initial: EMPTY_HOSPITAL_FORM,
            validate: validateHospital,
            fallback: 'Registration failed. Please try again.',
        });

    const language = i18n.resolvedLanguage ?? 'en';
    const countries = useMemo(() => countryOptions(COUNTRIES, language), [language]);
    const types = [
        { value: 'private', label: t('Private') },
        { value: 'public', label: t('Public') },
    ];

    const build = (values: HospitalForm): SignupBody => ({
        role: 'hospital',
        name: values.name.trim(),
        email: values.email.trim(),
        password: values.password,
        phoneNumber: values.phoneNumber.trim(),
        address: values.address.trim(),
        type: values.type,
        registrationNumber: values.registrationNumber.trim(),
        capacity: parseCapacity(values.capacity),
        country: values.country,
        state: values.state.trim(),
        ...(values.website.trim() ? { website: values.website.trim() } : {}),
        privacyPolicyAccepted: values.privacyPolicyAccepted,
        isHospitalCreated: false,
    });

    const onSubmit = submitWith(build, () => {
        notify(t('Registration successful! Please log in.'), 'success');
        navigate(paths.hospitalLogin);
    });

    const text = (field: TextFieldName) => ({
        name: field,
        value: form[field],
        onChange: (event: { target: { value: string } }) => set(field, event.target.value),
        error: error(field),
    });

    return (
        <RegisterPage
            title={t('Hospital Registration')}
            subtitle={t('Register your hospital to manage its doctors and subscription.')}
        >
            <FailureAlert failure={failure} anchor={failureRef} onClose={dismissFailure} />
            <form ref={formRef} onSubmit={onSubmit} noValidate>
                <FormSection legend={t('Hospital details')}>
                    <TextField label={t('Hospital Name')} autoComplete="organization" required {...text('name')} />
                    <SelectField
                        label={t('Hospital Type')}
                        name="type"
                        options={types}
                        value={form.type}
                        onChange={event => set('type', event.target.value as HospitalForm['type'])}
                        error={error('type')}
                    />
                    <TextField label={t('Registration Number')} required {...text('registrationNumber')} />
                    <TextField
                        label={t('Capacity (beds)')}
                        type="number"
                        name="capacity"
                        min={0}
                        step={1}
                        inputMode="numeric"
                        value={form.capacity}
                        onChange={event => set('capacity', event.target.value)}
                        error={error('capacity')}
                    />
                    <TextField
                        label={t('Website (optional)')}
                        type="url"
                        autoComplete="url"
                        hint={t('Starts with http:// or https://')}
                        {...text('website')}
                    />
                </FormSection>
                <FormSection legend={t('Account')}>
                    <TextField label={t('Email')} type="email" autoComplete="email" required {...text('email')} />
                    <TextField label={t('Phone Number')} type="tel" autoComplete="tel" required {...text('phoneNumber')} />
                    <TextField
                        label={t('Password')}
                        type="password"
                        name="password"
                        autoComplete="new-password"
                        required
                        value={form.password}
                        onChange={event => set('password', event.target.value)}
                        error={error('password')}
                        hint={t('At least 8 characters')}
                    />
                    <TextField
                        label={t('Confirm Password')}
                        type="password"
                        name="confirmPassword"
                        autoComplete="new-password"
                        required
                        value={form.confirmPassword}
                        onChange={event => set('confirmPassword', event.target.value)}
                        error={error('confirmPassword')}
                    />
                </FormSection>
                <FormSection legend={t('Location')}>
                    <TextField label={t('Address')} autoComplete="street-address" required {...text('address')} />
                    <SelectField
                        label={t('Country')}
                        name="country"
                        autoComplete="country-name"
                        required
                        placeholder={t('Select your country')}
                        options={countries}
                        value={form.country}
                        onChange={event => set('country', event.target.value)}
                        error={error('country')}
                    />
                    <TextField label={t('State/Province')} autoComplete="address-level1" required {...text('state')} />
                </FormSection>
                <PrivacyConsent
                    checked={form.privacyPolicyAccepted}
                    onChange={checked => set('privacyPolicyAccepted', checked)}
                    error={error('privacyPolicyAccepted')}
                />
                <Button type="submit" className="btn-block" busy={busy}>
                    {busy ? t('Registering...') : t('Register')}
                </Button>
            </form>
            <p className="auth-links">
                <span>
                    {t('Already have an account?')} <Link to={paths.hospitalLogin}>{t('Log in')}</Link>
                </span>
            </p>
        </RegisterPage>
    );
};

export default HospitalRegister;
