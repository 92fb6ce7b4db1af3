import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { SelectField, TextField } from '@/components/ui/Field';
import { useToast } from '@/components/ui/Toasts';
import { paths, SPECIALTIES, specialtyPath } from '@/config/paths';
import { clearDoctorDraft, readDoctorDraft } from '@/lib/forms/doctorDraft';
import { wholeNumber } from '@/lib/forms/fields';
import { useSession } from '@/lib/session/SessionProvider';
import { DEFAULT_AVAILABILITY, type SignupBody } from '../api';
import { CountryAndState, PasswordFields, RegisterForm } from '../components/RegisterFields';
import { FormSection, RegisterPage } from '../components/RegisterLayout';
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
    const { t } = useTranslation('register');
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

    const registration = useRegistrationForm<DoctorForm>({
        // Passwords are blank whatever the draft holds.
        initial: () => ({ ...EMPTY_DOCTOR_FORM, ...draft, password: '', confirmPassword: '' }),
        validate: validateDoctor,
        fallback: 'Registration failed',
        // Only the signed-in hospital's token lets the server file the doctor under it.
        asSignedInUser: hospitalCreated,
    });
    const { form, text, checkbox, submitWith } = registration;

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

    return (
        <RegisterPage title={t('Doctor Registration')} subtitle={t('Create your Cara account to start using your assistant.')}>
            {hospitalCreated && (
                <Alert kind="info">
                    <p>{t("This doctor will be registered under your hospital and will use your hospital's subscription.")}</p>
                    {draft && <p>{t('Your saved form has been restored. Please enter the password again.')}</p>}
                </Alert>
            )}
            <RegisterForm
                submission={registration}
                onSubmit={onSubmit}
                consent={checkbox('privacyPolicyAccepted')}
                loginTo={paths.doctorLogin}
            >
                <FormSection legend={t('Account')}>
                    <TextField label={t('Full Name')} autoComplete="name" required {...text('name')} />
                    <TextField label={t('Email')} type="email" autoComplete="email" required {...text('email')} />
                    <PasswordFields text={text} hint={t('At least 6 characters')} />
                    <TextField label={t('Phone Number')} type="tel" autoComplete="tel" required {...text('phoneNumber')} />
                </FormSection>
                <FormSection legend={t('Professional details')}>
                    <SelectField label={t('Specialty')} options={specialties} {...text('specialty')} />
                    <TextField label={t('License Number')} required {...text('licenseNumber')} />
                    <TextField
                        label={t('Years of Experience')}
                        type="number"
                        min={0}
                        max={80}
                        step={1}
                        inputMode="numeric"
                        {...text('experience')}
                    />
                </FormSection>
                <FormSection legend={t('Location')}>
                    <CountryAndState text={text} />
                </FormSection>
            </RegisterForm>
        </RegisterPage>
    );
};

export default DoctorRegister;
