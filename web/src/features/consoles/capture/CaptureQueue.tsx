/**
 * Record now, process later: when the live link cannot carry a consultation
 * (no connection, or the doctor prefers it), the console records the
 * microphone on this device after the usual consent step, and lists what is
 * waiting: recording, queued, uploading n %, processing, done (a link to the
 * consultation) or failed (retry). See useCaptures.ts.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Modal } from '@/components/ui/Modal';
import { consultationPath } from '@/config/paths';
import type { PatientReference } from '../consent/api';
import { PatientReferenceFields, usePatientReferenceForm } from '../consent/PatientReferenceFields';
import type { Capture } from './store';
import { useCaptures } from './useCaptures';

import './capture.css';

const size = (bytes: number) =>
    bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`;

const clock = (ms: number) => {
    const seconds = Math.floor(ms / 1000);
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

const RecordConsent = ({
    onConfirm,
    onCancel,
}: {
    onConfirm: (patientReference: PatientReference | null) => void;
    onCancel: () => void;
}) => {
    const { t } = useTranslation('capture');
    const reference = usePatientReferenceForm();
    const confirm = (event: FormEvent) => {
        event.preventDefault();
        onConfirm(reference.value());
    };
    return (
        <Modal title={t('Patient consent')} onClose={onCancel}>
            <form onSubmit={confirm} data-testid="capture-consent">
                <p>
                    {t(
                        'Before recording, confirm that the patient agreed to AI assistance and to this consultation being recorded and transcribed.',
                    )}
                </p>
                <p className="consent-note">
                    {t(
                        'The recording stays on this device until it is sent. Once Cara has transcribed it, the audio is deleted.',
                    )}
                </p>
                <PatientReferenceFields form={reference.form} setForm={reference.setForm} />
                <div className="sub-modal-footer">
                    <Button variant="secondary" onClick={onCancel}>
                        {t('Cancel')}
                    </Button>
                    <Button type="submit" autoFocus data-testid="capture-consent-confirm">
                        {t('The patient agrees: record')}
                    </Button>
                </div>
            </form>
        </Modal>
    );
};

const Elapsed = ({ capture }: { capture: Capture }) => {
    const [now, setNow] = useState(() => Date.now());
    useEffect(() => {
        const timer = window.setInterval(() => setNow(Date.now()), 500);
        return () => window.clearInterval(timer);
    }, []);
    return <span className="capture-elapsed">{clock(now - Date.parse(capture.recordedAt))}</span>;
};

const CaptureItem = ({
    capture,
    live,
    onRetry,
    onDismiss,
}: {
    capture: Capture;
    live: boolean;
    onRetry: () => void;
    onDismiss: () => void;
}) => {
    const { t, i18n } = useTranslation('capture');
    const percent = capture.bytes ? Math.floor((capture.sentBytes * 100) / capture.bytes) : 0;
    const stateText = {
        recording: t('Recording'),
        queued: t('Queued: waiting for the connection'),
        uploading: t('Uploading {{percent}}%', { percent }),
        processing: t('Processing: transcribing and drafting the note'),
        waiting: t('Waiting for the AI service'),
        done: t('Done'),
        failed: t('Failed'),
    }[capture.state];
    const started = new Date(capture.recordedAt).toLocaleString(i18n.language, {
        dateStyle: 'short',
        timeStyle: 'short',
    });
    return (
        <li className={`capture-item capture-${capture.state}`} data-testid="capture-item" data-state={capture.state}>
            <div className="capture-facts">
                <span className="capture-time">{started}</span>
                <span className="capture-duration" data-testid="capture-duration">
                    {live ? <Elapsed capture={capture} /> : clock(capture.durationMs)}
                </span>
                <span className="capture-size" data-testid="capture-size">
                    {size(capture.bytes)}
                </span>
                <span className="capture-state" role="status" data-testid="capture-state">
                    {stateText}
                </span>
            </div>
            {capture.state === 'uploading' && (
                <progress className="capture-progress" max={100} value={percent} aria-label={stateText} />
            )}
            {capture.error && capture.state === 'queued' && (
                <p className="capture-wait" data-testid="capture-wait">
                    {t(capture.error)}
                </p>
            )}
            {capture.error && (capture.state === 'failed' || capture.state === 'waiting') && (
                <p className="capture-error" data-testid="capture-error">
                    {t(capture.error)}
                </p>
            )}
            <div className="capture-actions">
                {capture.state === 'done' && capture.consultationId && (
                    <Link to={consultationPath(capture.consultationId)} data-testid="capture-open">
                        {t('Open the consultation')}
                    </Link>
                )}
                {(capture.state === 'failed' || capture.state === 'waiting') && (
                    <Button variant="secondary" onClick={onRetry} data-testid="capture-retry">
                        {t('Retry')}
                    </Button>
                )}
                {capture.state === 'done' && (
                    <Button variant="secondary" onClick={onDismiss}>
                        {t('Remove from this list')}
                    </Button>
                )}
            </div>
        </li>
    );
};

/** A recording the patient consented to elsewhere (the live consent dialog, server out of reach). */
export interface RecordRequest {
    patientReference: PatientReference | null;
}

export const CaptureQueue = ({
    console,
    linkDown,
    liveBusy,
    recordRequest = null,
    onRecordRequest,
}: {
    console: string;
    /** The live link cannot be used (offline, failed or still reconnecting). */
    linkDown: boolean;
    /** A live consultation is running: recording for later waits until it ends. */
    liveBusy: boolean;
    /** Start recording now, consent given; `onRecordRequest` is called once it is taken. */
    recordRequest?: RecordRequest | null;
    onRecordRequest?: () => void;
}) => {
    const { t } = useTranslation('capture');
    const captures = useCaptures(console);
    const [asking, setAsking] = useState(false);
    const { start } = captures;
    useEffect(() => {
        if (!recordRequest) return;
        onRecordRequest?.();
        void start(true, recordRequest.patientReference);
    }, [recordRequest, onRecordRequest, start]);
    const offline = !captures.online || linkDown;
    if (!captures.supported && !captures.captures.length) return null;
    const recording = captures.recordingId !== null;

    return (
        <section
            className={`capture-panel${offline ? ' is-offline' : ''}`}
            aria-label={t('Recordings to process later')}
            data-testid="capture-panel"
            data-online={captures.online}
        >
            {offline && !recording && (
                <p className="capture-notice" role="status" data-testid="capture-offline">
                    {t(
                        'No usable connection. Record the consultation now: Cara transcribes it and drafts the note once the connection returns.',
                    )}
                </p>
            )}
            <div className="capture-controls">
                {recording ? (
                    <Button variant="danger" onClick={() => void captures.stop()} data-testid="capture-stop">
                        {t('Stop recording')}
                    </Button>
                ) : (
                    <Button
                        variant={offline ? 'primary' : 'secondary'}
                        onClick={() => setAsking(true)}
                        disabled={!captures.supported || (liveBusy && !offline)}
                        data-testid="capture-start"
                    >
                        {t('Record now, process later')}
                    </Button>
                )}
            </div>
            {captures.error && (
                <Alert kind="error" onClose={captures.clearError}>
                    <p data-testid="capture-problem">{t(captures.error)}</p>
                </Alert>
            )}
            {captures.captures.length > 0 && (
                <ul className="capture-list" data-testid="capture-list">
                    {captures.captures.map(capture => (
                        <CaptureItem
                            key={capture.id}
                            capture={capture}
                            live={capture.id === captures.recordingId}
                            onRetry={() => void captures.retry(capture.id)}
                            onDismiss={() => void captures.dismiss(capture.id)}
                        />
                    ))}
                </ul>
            )}
            {asking && (
                <RecordConsent
                    onCancel={() => setAsking(false)}
                    onConfirm={patientReference => {
                        setAsking(false);
                        void captures.start(true, patientReference);
                    }}
                />
            )}
        </section>
    );
};
