import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { updatePatientReference, type Consultation, type ConsultationSummary, type PatientReference } from '../api';

/** The patient reference, shown in a line and edited in place. Never sent to the AI model. */
export const usePatientReferenceText = () => {
    const { t } = useTranslation('consultations');
    return (reference: PatientReference | null | undefined): string => {
        if (!reference) return '';
        const sex = { female: t('Female'), male: t('Male'), other: t('Other'), unknown: t('Not given') };
        return [
            reference.recordNumber ? t('Record {{number}}', { number: reference.recordNumber }) : '',
            reference.name ?? '',
            reference.age !== null && reference.age !== undefined ? t('{{age}} years', { age: reference.age }) : '',
            reference.sex ? sex[reference.sex] : '',
        ]
            .filter(Boolean)
            .join(' · ');
    };
};

export const PatientReferenceEditor = ({
    consultation,
    onSaved,
}: {
    consultation: Consultation;
    /** The consultation's new summary fields (the page keeps its transcript, drafts and note). */
    onSaved: (next: ConsultationSummary) => void;
}) => {
    const { t } = useTranslation('consultations');
    const describe = usePatientReferenceText();
    const current = consultation.patientReference;
    const [editing, setEditing] = useState(false);
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState<string | null>(null);
    const [form, setForm] = useState({ recordNumber: '', name: '', age: '', sex: '' });

    const open = () => {
        setForm({
            recordNumber: current?.recordNumber ?? '',
            name: current?.name ?? '',
            age: current?.age !== null && current?.age !== undefined ? String(current.age) : '',
            sex: current?.sex ?? '',
        });
        setError(null);
        setEditing(true);
    };

    const submit = async (event: FormEvent) => {
        event.preventDefault();
        const value: PatientReference = {};
        if (form.recordNumber.trim()) value.recordNumber = form.recordNumber.trim();
        if (form.name.trim()) value.name = form.name.trim();
        if (form.age.trim()) value.age = Number(form.age);
        if (form.sex) value.sex = form.sex as PatientReference['sex'];
        setBusy(true);
        const result = await updatePatientReference(consultation.id, Object.keys(value).length ? value : null);
        setBusy(false);
        if (result.ok) {
            setEditing(false);
            onSaved(result.data);
        } else setError(t(result.message));
    };

    const field = (name: keyof typeof form) => ({
        value: form[name],
        onChange: (event: { target: { value: string } }) => setForm(value => ({ ...value, [name]: event.target.value })),
        disabled: busy,
    });

    if (!editing)
        return (
            <p className="cons-patient" data-testid="patient-reference">
                <span>{describe(current) || t('No patient reference')}</span>{' '}
                <Button variant="ghost" onClick={open} data-testid="patient-reference-edit">
                    {t('Edit patient reference')}
                </Button>
            </p>
        );
    return (
        <form className="cons-patient-form" onSubmit={event => void submit(event)} data-testid="patient-reference-form">
            <p className="cons-muted">{t('Used to find and file the note. It is never sent to the AI model.')}</p>
            <div className="cons-patient-row">
                <TextField label={t('Record number')} autoComplete="off" maxLength={64} {...field('recordNumber')} />
                <TextField label={t('Patient name')} autoComplete="off" maxLength={200} {...field('name')} />
                <TextField label={t('Age')} type="number" min={0} max={150} inputMode="numeric" {...field('age')} />
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
            {error && (
                <Alert kind="error">
                    <p>{error}</p>
                </Alert>
            )}
            <div className="cons-actions">
                <Button variant="secondary" onClick={() => setEditing(false)} disabled={busy}>
                    {t('Cancel')}
                </Button>
                <Button type="submit" busy={busy}>
                    {t('Save')}
                </Button>
            </div>
        </form>
    );
};
