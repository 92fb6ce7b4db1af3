/**
 * The optional patient reference of a consent step (live, or "record now, process later"):
 * record number, name, age and sex. Used to find and file the note; never sent to the AI model.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { SelectField, TextField } from '@/components/ui/Field';
import type { PatientReference } from './api';

type Form = { recordNumber: string; name: string; age: string; sex: string };

export const usePatientReferenceForm = () => {
    const [form, setForm] = useState<Form>({ recordNumber: '', name: '', age: '', sex: '' });
    /** What was filled in, trimmed; null when nothing was. */
    const value = (): PatientReference | null => {
        const reference: PatientReference = {};
        if (form.recordNumber.trim()) reference.recordNumber = form.recordNumber.trim();
        if (form.name.trim()) reference.name = form.name.trim();
        if (form.age.trim()) reference.age = Number(form.age);
        if (form.sex) reference.sex = form.sex as PatientReference['sex'];
        return Object.keys(reference).length ? reference : null;
    };
    return { form, setForm, value };
};

export const PatientReferenceFields = ({
    form,
    setForm,
    disabled = false,
}: {
    form: Form;
    setForm: (change: (current: Form) => Form) => void;
    disabled?: boolean;
}) => {
    const { t } = useTranslation('consultations');
    const field = (name: keyof Form) => ({
        value: form[name],
        onChange: (event: { target: { value: string } }) => setForm(current => ({ ...current, [name]: event.target.value })),
        disabled,
    });
    return (
        <details className="consent-reference">
            <summary>{t('Add a patient reference (optional)')}</summary>
            <p className="consent-note">{t('Used to find and file the note. It is never sent to the AI model.')}</p>
            <TextField label={t('Record number')} autoComplete="off" maxLength={64} {...field('recordNumber')} />
            <TextField label={t('Patient name')} autoComplete="off" maxLength={120} {...field('name')} />
            <div className="consent-row">
                <TextField label={t('Age')} type="number" min={0} max={130} inputMode="numeric" {...field('age')} />
                <SelectField
                    label={t('Sex')}
                    placeholder={t('Not given')}
                    options={[
                        { value: 'female', label: t('Female') },
                        { value: 'male', label: t('Male') },
                        { value: 'other', label: t('Other') },
                    ]}
                    {...field('sex')}
                />
            </div>
        </details>
    );
};
