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
import { Modal } from '@/components/ui/Modal';
import { openConsultation } from './api';
import { PatientReferenceFields, usePatientReferenceForm } from './PatientReferenceFields';

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
    const reference = usePatientReferenceForm();

    const confirm = async (event: FormEvent) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        const result = await openConsultation(console, reference.value());
        setBusy(false);
        if (result.ok) onConsented(result.data.id);
        else setError(result.message);
    };

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
                <PatientReferenceFields form={reference.form} setForm={reference.setForm} disabled={busy} />
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
