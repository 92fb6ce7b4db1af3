import { useId, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { Modal } from '@/components/ui/Modal';
import { useToast } from '@/components/ui/Toasts';
import { COUNTRIES, countryOptions } from '@/config/countries';
import { paths, SPECIALTIES } from '@/config/paths';
import { saveDoctorDraft } from '@/lib/forms/doctorDraft';
import { useCheckedForm } from '@/lib/forms/useCheckedForm';
import { addDoctor, updateDoctor, type Doctor } from '../api';
import {
    EMPTY_MANAGE_FORM,
    manageCreateBody,
    manageFormOf,
    manageUpdateBody,
    validateManageDoctor,
    type ManageDoctorField,
} from '../validation';

import '../hospitals.css';

/**
 * The Manage Doctors add/edit dialog (spec §2, §4 "Add/edit modal", §5
 * "Manage Doctors form"): edit mode when a doctor is given. It unmounts on
 * close, so the next opening starts with a fresh form and no errors.
 * While adding, 'Open full registration form' keeps what was typed (never the
 * password) as the /doctor-register draft and continues there.
 */
export const DoctorFormModal = ({
    doctor,
    hospitalId,
    onClose,
    onSaved,
}: {
    doctor: Doctor | null;
    hospitalId: string;
    onClose: () => void;
    /** After a successful add or edit (the page reloads its list). */
    onSaved: () => void;
}) => {
    const { t, i18n } = useTranslation('hospitals');
    const notify = useToast();
    const navigate = useNavigate();
    const formId = useId();
    const adding = doctor === null;
    const { form, set, error, check, showServerFields, formRef } = useCheckedForm(
        doctor ? manageFormOf(doctor) : EMPTY_MANAGE_FORM,
        values => validateManageDoctor(values, { adding }),
        'hospitals',
    );
    const [busy, setBusy] = useState(false);
    const [failure, setFailure] = useState<string | null>(null);

    const language = i18n.resolvedLanguage ?? 'en';
    const countries = useMemo(() => {
        const options = countryOptions(COUNTRIES, language);
        // A doctor added elsewhere may have a country outside the list: keep it choosable.
        const current = form.country;
        if (current && !options.some(option => option.value === current)) {
            return [{ value: current, label: current }, ...options];
        }
        return options;
    }, [language, form.country]);
    const specialties = SPECIALTIES.map(specialty => ({ value: specialty, label: t(specialty) }));

    const submit = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        if (busy || !check()) return;
        if (!hospitalId) {
            notify(t('Hospital ID is missing. Please log in again.'), 'error');
            return;
        }
        let result;
        setFailure(null);
        if (doctor) {
            const body = manageUpdateBody(form, doctor, hospitalId);
            if (!body) {
                onClose(); // nothing changed: nothing to send
                return;
            }
            setBusy(true);
            result = await updateDoctor(doctor._id, body);
        } else {
            setBusy(true);
            result = await addDoctor(manageCreateBody(form, hospitalId));
        }
        setBusy(false);
        if (result.ok) {
            notify(
                doctor
                    ? t('Doctor {{name}} updated successfully!', { name: result.data.name })
                    : t('Doctor {{name}} added successfully!', { name: result.data.name }),
                'success',
            );
            onSaved();
            return;
        }
        const message = t(result.message);
        notify(message, 'error');
        setFailure(message);
        showServerFields(result.fields);
    };

    const openFullForm = () => {
        const { password: _password, ...typed } = form;
        saveDoctorDraft({ ...typed });
        const query = new URLSearchParams({ isHospitalCreated: 'true', hospitalId });
        navigate(`${paths.doctorRegister}?${query.toString()}`);
    };

    const field = (name: ManageDoctorField) => ({
        value: form[name],
        error: error(name),
        onChange: (event: { target: { value: string } }) => set(name, event.target.value as never),
        'aria-required': true,
    });

    return (
        <Modal
            title={adding ? t('Add New Doctor') : t('Edit Doctor')}
            onClose={onClose}
            closable={!busy}
            footer={
                <>
                    <Button variant="secondary" onClick={onClose} disabled={busy}>
                        {t('Cancel')}
                    </Button>
                    <Button type="submit" form={formId} busy={busy}>
                        {adding ? t('Add Doctor') : t('Save Changes')}
                    </Button>
                </>
            }
        >
            {failure && (
                <Alert kind="error" title={t('Failed to save doctor')} onClose={() => setFailure(null)}>
                    <p>{failure}</p>
                </Alert>
            )}
            <form id={formId} ref={formRef} className="hosp-doctor-form" noValidate onSubmit={event => void submit(event)}>
                <div className="hosp-form-grid">
                    <TextField label={t('Full Name')} autoComplete="off" {...field('name')} />
                    <TextField label={t('Email')} type="email" autoComplete="off" {...field('email')} />
                    <TextField
                        label={t('Phone Number')}
                        type="tel"
                        inputMode="numeric"
                        autoComplete="off"
                        {...field('phoneNumber')}
                    />
                    <SelectField label={t('Specialty')} options={specialties} {...field('specialty')} />
                    <TextField label={t('License Number')} autoComplete="off" {...field('licenseNumber')} />
                    <TextField
                        label={t('Experience (years)')}
                        type="number"
                        min={0}
                        max={80}
                        step={1}
                        inputMode="numeric"
                        {...field('experience')}
                    />
                    <SelectField
                        label={t('Country')}
                        placeholder={t('Select a country')}
                        options={countries}
                        {...field('country')}
                    />
                    <TextField label={t('State/Province')} autoComplete="off" {...field('state')} />
                    {adding && (
                        <TextField
                            label={t('Password')}
                            type="password"
                            autoComplete="new-password"
                            {...field('password')}
                        />
                    )}
                </div>
            </form>
            {adding && (
                <p className="hosp-full-form">
                    <Button variant="ghost" onClick={openFullForm} disabled={busy}>
                        {t('Open full registration form')}
                    </Button>
                    <small>{t('Continue on the full registration page, with password confirmation and privacy policy. What you typed is kept, except the password.')}</small>
                </p>
            )}
        </Modal>
    );
};
