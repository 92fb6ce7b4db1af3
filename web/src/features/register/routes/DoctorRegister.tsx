import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { useToast } from '@/components/ui/Toasts';
import { COUNTRIES, countryOptions } from '@/config/countries';
import { paths, SPECIALTIES, specialtyPath, type Specialty } from '@/config/paths';
import { clearDoctorDraft, readDoctorDraft } from '@/lib/forms/doctorDraft';
import { wholeNumber } from '@/lib/forms/fields';
import { useSession } from '@/lib/session/SessionProvider';
import { DEFAULT_AVAILABILITY, type SignupBody } from '../api';
import { FailureAlert, FormSection, PrivacyConsent, RegisterPage } from '../components/RegisterLayout';
import { useRegistrationForm } from '../components/useRegistrationForm';
import { EMPTY_DOCTOR_FORM, validateDoctor, type DoctorForm } from '../validation';

/**
 * /doctor-register (spec §2, §3, §5). Two uses:
 * - a doctor registering themself: signed in on success, sent to their specialty's page;
 * - a signed-in hospital registering one of its doctors
 *   (?isHospitalCreated=true&hospitalId=...): the draft it left is restored,
 *   the hospital stays signed in, and it lands on /doctor-dashboard.
 */
const DoctorRegister = () => {
    const { t, i18n } = useTranslation('register');
    const [params] = useSearchParams();
    const hospitalCreated = params.get('isHospitalCreated') === 'true';
    const hospitalId = params.get('hospitalId')?.trim() ?? '';
    const { signIn } = useSession();
    const notify = useToast();
    const navigate = useNavigate();

    // Read during the first render so the restored values are there at once;
    // removed in an effect (render must stay free of side effects).
    const [draft] = useState(() => (hospitalCreated ? readDoctorDraft() : null));
    useEffect(() => {
        if (draft) clearDoctorDraft();
    }, [draft]);

    const { form, set, error, busy, failure, failureRef, formRef, submitWith, dismissFailure } =
        useRegistrationForm<DoctorForm>({
            // Passwords are blank whatever the draft holds.
            initial: () => ({ ...EMPTY_DOCTOR_FORM, ...draft, password: '', confirmPassword: '' }),
            validate: validateDoctor,
            fallback: 'Registration failed',
            // Only the signed-in hospital's token lets the server file the doctor under it.
            asSignedInUser: hospitalCreated,
        });

    const language = i18n.resolvedLanguage ?? 'en';
    // Every form offers the same countries (Africa and the Caribbean).
    const countries = useMemo(() => countryOptions(COUNTRIES, language), [language]);
    const specialties = SPECIALTIES.map(specialty => ({ value: specialty, label: t(specialty) }));

    const build = (values: DoctorForm): SignupBody => ({
        role: 'doctor',
        name: values.name.trim(),
        email: values.email.trim(),
        password: values.password,
        phoneNumber: values.phoneNumber.trim(),
        specialty: values.specialty,
        licenseNumber: values.licenseNumber.trim(),
        experience: wholeNumber(values.experience) ?? 0,
        country: values.country,
        state: values.state.trim(),
        education: [],
        certifications: [],
        workHistory: [],
        availability: DEFAULT_AVAILABILITY,
        isHospitalCreated: hospitalCreated,
        ...(hospitalCreated && hospitalId ? { hospitalId } : {}),
        privacyPolicyAccepted: values.privacyPolicyAccepted,
    });

    const onSubmit = submitWith(build, ({ token, user }) => {
        notify(t('Registration successful!'), 'success');
        if (hospitalCreated) {
            // The hospital registered someone else: its own session stays, and it goes back to
            // its list of doctors (the doctor's dashboard is not the hospital's to see).
            navigate(paths.manage);
            return;
        }
        signIn(token, user);
        navigate(specialtyPath(user.specialty ?? form.specialty));
    });

    const text = (field: 'name' | 'email' | 'phoneNumber' | 'licenseNumber' | 'state') => ({
        name: field,
        value: form[field],
        onChange: (event: { target: { value: string } }) => set(field, event.target.value),
        error: error(field),
    });

    return (
        <RegisterPage title={t('Doctor Registration')} subtitle={t('Create your Cara account to start using your assistant.')}>
            {hospitalCreated && (
                <Alert kind="info">
                    <p>{t("This doctor will be registered under your hospital and will use your hospital's subscription.")}</p>
                    {draft && <p>{t('Your saved form has been restored. Please enter the password again.')}</p>}
                </Alert>
            )}
            <FailureAlert failure={failure} anchor={failureRef} onClose={dismissFailure} />
            <form ref={formRef} onSubmit={onSubmit} noValidate>
                <FormSection legend={t('Account')}>
                    <TextField label={t('Full Name')} autoComplete="name" required {...text('name')} />
                    <TextField label={t('Email')} type="email" autoComplete="email" required {...text('email')} />
                    <TextField
                        label={t('Password')}
                        type="password"
                        name="password"
                        autoComplete="new-password"
                        required
                        value={form.password}
                        onChange={event => set('password', event.target.value)}
                        error={error('password')}
                        hint={t('At least 6 characters')}
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
                    <TextField label={t('Phone Number')} type="tel" autoComplete="tel" required {...text('phoneNumber')} />
                </FormSection>
                <FormSection legend={t('Professional details')}>
                    <SelectField
                        label={t('Specialty')}
                        name="specialty"
                        options={specialties}
                        value={form.specialty}
                        onChange={event => set('specialty', event.target.value as Specialty)}
                        error={error('specialty')}
                    />
                    <TextField label={t('License Number')} required {...text('licenseNumber')} />
                    <TextField
                        label={t('Years of Experience')}
                        type="number"
                        name="experience"
                        min={0}
                        max={80}
                        step={1}
                        inputMode="numeric"
                        value={form.experience}
                        onChange={event => set('experience', event.target.value)}
                        error={error('experience')}
                    />
                </FormSection>
                <FormSection legend={t('Location')}>
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
                    {t('Already have an account?')} <Link to={paths.doctorLogin}>{t('Log in')}</Link>
                </span>
            </p>
        </RegisterPage>
    );
};

export default DoctorRegister;
