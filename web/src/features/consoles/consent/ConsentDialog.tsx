/**
 * Consent before a consultation (issue 16): the doctor confirms, in one
 * click, that the patient agreed to AI assistance and to the consultation
 * being transcribed. Only then does the console open a consultation on the
 * server (POST /api/consultations, which stores who consented and when) and
 * connect; nothing is captured or relayed before. A patient reference can be
 * added here or later on the consultation's page; it is never sent to the
 * AI model.
 */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { Modal } from '@/components/ui/Modal';
import { openConsultation, type PatientReference } from './api';

import './consent.css';

export const ConsentDialog = ({
    console,
    onConsented,
    onCancel,
}: {
    console: string;
    /** Called inside the confirming click's task chain with the new consultation's id. */
    onConsented: (consultationId: string) => void;
    onCancel: () => void;
}) => {
    const { t } = useTranslation('consultations');
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState<string | null>(null);
    const [reference, setReference] = useState({ recordNumber: '', name: '', age: '', sex: '' });

    const patientReference = (): PatientReference | null => {
        const value: PatientReference = {};
        if (reference.recordNumber.trim()) value.recordNumber = reference.recordNumber.trim();
        if (reference.name.trim()) value.name = reference.name.trim();
        if (reference.age.trim()) value.age = Number(reference.age);
        if (reference.sex) value.sex = reference.sex as PatientReference['sex'];
        return Object.keys(value).length ? value : null;
    };

    const confirm = async (event: FormEvent) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        const result = await openConsultation(console, patientReference());
        setBusy(false);
        if (result.ok) onConsented(result.data.id);
        else setError(result.message);
    };

    const field = (name: keyof typeof reference) => ({
        value: reference[name],
        onChange: (event: { target: { value: string } }) =>
            setReference(current => ({ ...current, [name]: event.target.value })),
        disabled: busy,
    });

    return (
        <Modal title={t('Patient consent')} onClose={onCancel} closable={!busy}>
            <form onSubmit={event => void confirm(event)} data-testid="consent-dialog">
                <p>
                    {t(
                        'Before Cara listens, confirm that the patient agreed to AI assistance and to this consultation being transcribed.',
                    )}
                </p>
                <p className="consent-note">
                    {t('Your confirmation is recorded with your name and the time. Audio is never stored.')}
                </p>
                <details className="consent-reference">
                    <summary>{t('Add a patient reference (optional)')}</summary>
                    <p className="consent-note">
                        {t("Used to find and file the note. It is never sent to the AI model.")}
                    </p>
                    <TextField label={t('Record number')} autoComplete="off" maxLength={64} {...field('recordNumber')} />
                    <TextField label={t('Patient name')} autoComplete="off" maxLength={120} {...field('name')} />
                    <div className="consent-row">
                        <TextField
                            label={t('Age')}
                            type="number"
                            min={0}
                            max={130}
                            inputMode="numeric"
                            {...field('age')}
                        />
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
                {error && (
                    <Alert kind="error">
                        <p data-testid="consent-error">{t(error)}</p>
                    </Alert>
                )}
                <div className="sub-modal-footer">
                    <Button variant="secondary" onClick={onCancel} disabled={busy}>
                        {t('Cancel')}
                    </Button>
                    <Button type="submit" busy={busy} autoFocus data-testid="consent-confirm">
                        {t('The patient agrees: start')}
                    </Button>
                </div>
            </form>
        </Modal>
    );
};
