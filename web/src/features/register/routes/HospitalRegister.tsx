import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { SelectField, TextField } from '@/components/ui/Field';
import { useToast } from '@/components/ui/Toasts';
import { paths } from '@/config/paths';
import type { SignupBody } from '../api';
import { CountryAndState, PasswordFields, RegisterForm } from '../components/RegisterFields';
import { FormSection, RegisterPage } from '../components/RegisterLayout';
import { useRegistrationForm } from '../components/useRegistrationForm';
import { EMPTY_HOSPITAL_FORM, parseCapacity, validateHospital, type HospitalForm } from '../validation';

/**
 * /hospital-register (spec §2, §3, §5). A new hospital does not get signed
 * in: it is sent to /hospital-login with 'Registration successful! Please log in.'
 */
const HospitalRegister = () => {
    const { t } = useTranslation('register');
    const notify = useToast();
    const navigate = useNavigate();
    const registration = useRegistrationForm<HospitalForm>({
        initial: EMPTY_HOSPITAL_FORM,
        validate: validateHospital,
        fallback: 'Registration failed. Please try again.',
    });
    const { text, checkbox, submitWith } = registration;

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

    return (
        <RegisterPage
            title={t('Hospital Registration')}
            subtitle={t('Register your hospital to manage its doctors and subscription.')}
        >
            <RegisterForm
                submission={registration}
                onSubmit={onSubmit}
                consent={checkbox('privacyPolicyAccepted')}
                loginTo={paths.hospitalLogin}
            >
                <FormSection legend={t('Hospital details')}>
                    <TextField label={t('Hospital Name')} autoComplete="organization" required {...text('name')} />
                    <SelectField label={t('Hospital Type')} options={types} {...text('type')} />
                    <TextField label={t('Registration Number')} required {...text('registrationNumber')} />
                    <TextField
                        label={t('Capacity (beds)')}
                        type="number"
                        min={0}
                        step={1}
                        inputMode="numeric"
                        {...text('capacity')}
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
                    <PasswordFields text={text} hint={t('At least 8 characters')} />
                </FormSection>
                <FormSection legend={t('Location')}>
                    <TextField label={t('Address')} autoComplete="street-address" required {...text('address')} />
                    <CountryAndState text={text} />
                </FormSection>
            </RegisterForm>
        </RegisterPage>
    );
};

export default HospitalRegister;
