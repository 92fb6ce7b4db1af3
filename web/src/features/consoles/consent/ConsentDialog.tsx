/**
 * Consent before a consultation (issue 16): the doctor confirms, in one
 * click, that the patient agreed to AI assistance and to the consultation
 * being transcribed. Only then does the console open a consultation on the
 * server (POST /api/consultations, which stores who consented and when) and
 * connect; nothing is captured or relayed before. A patient reference can be
 * added here or later on the consultation's page; it is never sent to the
 * AI model.
 *
 * When the server cannot be reached (the browser is offline, or the request
 * found no server), the dialog offers "Record now, process later" instead of
 * an error: the consent asked is then the recording's, and confirming it hands
 * the patient reference to the console's recorder (`onRecordInstead`).
 */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Modal } from '@/components/ui/Modal';
import { openConsultation, type PatientReference } from './api';
import { PatientReferenceFields, usePatientReferenceForm } from './PatientReferenceFields';

import './consent.css';

/** No answer from Cara: no network, or a gateway with no server behind it. */
export const unreachable = (status: number | undefined): boolean =>
    status === undefined || status === 502 || status === 503 || status === 504;

export const ConsentDialog = ({
    console,
    onConsented,
    onRecordInstead,
    onCancel,
}: {
    console: string;
    /** Called inside the confirming click's task chain with the new consultation's id. */
    onConsented: (consultationId: string) => void;
    /** The server cannot be reached: the patient agreed to a recording, made on this device. */
    onRecordInstead?: (patientReference: PatientReference | null) => void;
    onCancel: () => void;
}) => {
    const { t } = useTranslation('consultations');
    // The recording's own consent texts (the console loads the 'capture' namespace).
    const { t: tc } = useTranslation('capture');
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState<string | null>(null);
    const [offline, setOffline] = useState(() => Boolean(onRecordInstead) && !navigator.onLine);
    const reference = usePatientReferenceForm();

    const confirm = async (event: Pick<FormEvent, 'preventDefault'>) => {
        event.preventDefault();
        setBusy(true);
        setError(null);
        const result = await openConsultation(console, reference.value());
        setBusy(false);
        if (result.ok) onConsented(result.data.id);
        else if (onRecordInstead && unreachable(result.status)) setOffline(true);
        else setError(result.message);
    };

    if (offline && onRecordInstead) {
        const record = (event: FormEvent) => {
            event.preventDefault();
            onRecordInstead(reference.value());
        };
        return (
            <Modal title={t('Patient consent')} onClose={onCancel} closable={!busy}>
                <form onSubmit={record} data-testid="consent-dialog" data-offline="true">
                    <Alert kind="info" title={tc('Record now, process later')}>
                        <p data-testid="consent-offline">
                            {t(
                                'Cara cannot be reached right now. Record the consultation on this device instead: Cara transcribes it and drafts the note once the connection returns.',
                            )}
                        </p>
                    </Alert>
                    <p>
                        {tc(
                            'Before recording, confirm that the patient agreed to AI assistance and to this consultation being recorded and transcribed.',
                        )}
                    </p>
                    <p className="consent-note">
                        {tc(
                            'The recording stays on this device until it is sent. Once Cara has transcribed it, the audio is deleted.',
                        )}
                    </p>
                    <PatientReferenceFields form={reference.form} setForm={reference.setForm} disabled={busy} />
                    <div className="sub-modal-footer">
                        <Button variant="secondary" onClick={onCancel} disabled={busy}>
                            {t('Cancel')}
                        </Button>
                        <Button
                            variant="secondary"
                            busy={busy}
                            onClick={event => void confirm(event)}
                            data-testid="consent-try-live"
                        >
                            {t('Try again')}
                        </Button>
                        <Button type="submit" autoFocus disabled={busy} data-testid="consent-record">
                            {tc('The patient agrees: record')}
                        </Button>
                    </div>
                </form>
            </Modal>
        );
    }

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
