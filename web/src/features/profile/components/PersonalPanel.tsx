import { useTranslation } from 'react-i18next';

import { SelectField, TextField } from '@/components/ui/Field';
import { SPECIALTIES, type Specialty } from '@/config/paths';
import type { ProfileForm } from '../model';
import type { PanelProps } from './shared';

/** Personal Information: name, email, phone number, specialty, license number, years of experience. */
export const PersonalPanel = ({ form, editing, error, change }: PanelProps) => {
    const { t } = useTranslation('doctor');
    const set =
        <K extends keyof ProfileForm>(field: K) =>
        (value: ProfileForm[K]) =>
            change(field, current => ({ ...current, [field]: value }));
    const common = (field: keyof ProfileForm) => ({
        'data-field': field,
        readOnly: !editing,
        error: error(field),
    });

    return (
        <section aria-labelledby="profile-personal-heading">
            <h2 id="profile-personal-heading" className="profile-panel-title">
                {t('Personal Information')}
            </h2>
            <div className="form-grid">
                <TextField
                    label={t('Full Name')}
                    autoComplete="name"
                    maxLength={200}
                    value={form.name}
                    onChange={event => set('name')(event.target.value)}
                    {...common('name')}
                />
                <TextField
                    label={t('Email')}
                    type="email"
                    autoComplete="email"
                    maxLength={254}
                    value={form.email}
                    onChange={event => set('email')(event.target.value)}
                    {...common('email')}
                />
                <TextField
                    label={t('Phone Number')}
                    type="tel"
                    autoComplete="tel"
                    maxLength={32}
                    value={form.phoneNumber}
                    onChange={event => set('phoneNumber')(event.target.value)}
                    {...common('phoneNumber')}
                />
                {editing ? (
                    <SelectField
                        label={t('Specialty')}
                        data-field="specialty"
                        value={form.specialty}
                        error={error('specialty')}
                        options={SPECIALTIES.map(value => ({ value, label: t(value) }))}
                        onChange={event => set('specialty')(event.target.value as Specialty)}
                    />
                ) : (
                    // A select cannot be read-only; outside edit mode the choice is plain text in a field.
                    <TextField label={t('Specialty')} value={t(form.specialty)} readOnly data-field="specialty" />
                )}
                <TextField
                    label={t('License Number')}
                    maxLength={100}
                    value={form.licenseNumber}
                    onChange={event => set('licenseNumber')(event.target.value)}
                    {...common('licenseNumber')}
                />
                <TextField
                    label={t('Years of Experience')}
                    type="number"
                    inputMode="numeric"
                    min={0}
                    max={80}
                    step={1}
                    value={form.experience}
                    onChange={event => set('experience')(event.target.value)}
                    {...common('experience')}
                />
            </div>
        </section>
    );
};
