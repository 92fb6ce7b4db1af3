import { useEffect, useId, useRef, useState, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { useToast } from '@/components/ui/Toasts';
import { checkCertificateFile, downloadCertificate, uploadCertificate, type CertificateFile } from '../api';
import type { CertificationForm } from '../model';

/**
 * The certificate file of one certification. Choosing a file checks it here
 * (size, and PDF/PNG/JPEG by its bytes, as the server does), then uploads it
 * with a progress bar; the server's id becomes the entry's fileId, kept once
 * the profile is saved. A stored file shows its name and size and can be
 * downloaded (through the token-carrying client, see api.ts).
 */
type Stage = { kind: 'idle' } | { kind: 'checking' } | { kind: 'uploading'; percent: number };

export const CertificateFileField = ({
    entry,
    fieldKey,
    editing,
    error,
    onUploaded,
    onRemove,
    onError,
    onBusy,
}: {
    entry: CertificationForm;
    /** `certifications.N.file`, the key of the file's errors. */
    fieldKey: string;
    editing: boolean;
    error?: string;
    onUploaded: (file: CertificateFile) => void;
    onRemove: () => void;
    /** An English message, or null to clear. */
    onError: (message: string | null) => void;
    onBusy: (busy: boolean) => void;
}) => {
    const { t, i18n } = useTranslation('doctor');
    const notify = useToast();
    const inputId = useId();
    const hintId = `${inputId}-hint`;
    const errorId = `${inputId}-error`;
    const [stage, setStage] = useState<Stage>({ kind: 'idle' });
    const [justUploaded, setJustUploaded] = useState(false);
    const [downloading, setDownloading] = useState(false);
    const upload = useRef<AbortController | null>(null);
    const busyRef = useRef(onBusy);
    busyRef.current = onBusy;

    // Leaving (entry removed, edit cancelled) stops an upload in flight.
    useEffect(
        () => () => {
            if (upload.current) {
                upload.current.abort();
                busyRef.current(false);
            }
        },
        [],
    );

    const size = (bytes: number | null) => {
        if (bytes === null) return '';
        const language = i18n.resolvedLanguage ?? 'en';
        const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'megabyte'] : [bytes / 1024, 'kilobyte'];
        return new Intl.NumberFormat(language, { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
    };

    const choose = async (event: ChangeEvent<HTMLInputElement>) => {
        const input = event.currentTarget;
        const file = input.files?.[0];
        if (!file) return;
        onError(null);
        setJustUploaded(false);
        setStage({ kind: 'checking' });
        const refused = await checkCertificateFile(file);
        if (refused) {
            input.value = '';
            setStage({ kind: 'idle' });
            onError(refused);
            return;
        }
        const controller = new AbortController();
        upload.current = controller;
        onBusy(true);
        setStage({ kind: 'uploading', percent: 0 });
        const result = await uploadCertificate(
            file,
            fraction => setStage({ kind: 'uploading', percent: Math.round(fraction * 100) }),
            controller.signal,
        );
        if (controller.signal.aborted) return; // unmounted: nothing left to update
        upload.current = null;
        onBusy(false);
        input.value = '';
        setStage({ kind: 'idle' });
        if (result.ok) {
            setJustUploaded(true);
            onUploaded(result.data);
        } else {
            onError(result.message);
        }
    };

    const download = async () => {
        if (!entry.fileId) return;
        setDownloading(true);
        const failed = await downloadCertificate(entry.fileId, entry.fileName ?? '');
        setDownloading(false);
        if (failed) notify(t(failed), 'error');
    };

    const label = t('Certificate File');
    const busy = stage.kind !== 'idle';

    return (
        <div className="field profile-file" data-testid="certificate-file">
            {entry.fileId ? (
                <>
                    <span className="profile-file-label" id={`${inputId}-label`}>
                        {label}
                    </span>
                    <div className="profile-file-stored" aria-labelledby={`${inputId}-label`} role="group">
                        <span className="profile-file-icon" aria-hidden="true">
                            ▤
                        </span>
                        <span className="profile-file-name" data-testid="certificate-file-name">
                            {entry.fileName ?? t('Certificate file')}
                        </span>
                        {entry.fileSize !== null && <span className="profile-file-size">{size(entry.fileSize)}</span>}
                        {justUploaded && editing && (
                            <span className="profile-file-note" role="status">
                                {t('Uploaded. Save your changes to keep it.')}
                            </span>
                        )}
                        <span className="profile-file-actions">
                            <Button variant="secondary" busy={downloading} onClick={() => void download()}>
                                {t('Download')}
                            </Button>
                            {editing && (
                                <Button
                                    variant="ghost"
                                    data-field={fieldKey}
                                    onClick={() => {
                                        setJustUploaded(false);
                                        onError(null);
                                        onRemove();
                                    }}
                                >
                                    {t('Remove file')}
                                </Button>
                            )}
                        </span>
                    </div>
                    {error && (
                        <p className="field-error" id={errorId}>
                            {error}
                        </p>
                    )}
                </>
            ) : editing ? (
                <>
                    <label htmlFor={inputId}>{label}</label>
                    <input
                        id={inputId}
                        type="file"
                        data-field={fieldKey}
                        accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg"
                        disabled={busy}
                        aria-invalid={error ? true : undefined}
                        aria-describedby={error ? `${errorId} ${hintId}` : hintId}
                        onChange={event => void choose(event)}
                    />
                    <small className="field-hint" id={hintId}>
                        {t('PDF, PNG or JPEG, up to 5 MB.')}
                    </small>
                    {stage.kind === 'checking' && (
                        <p className="profile-upload" role="status">
                            {t('Checking the file...')}
                        </p>
                    )}
                    {stage.kind === 'uploading' && (
                        <div className="profile-upload" role="status" data-testid="upload-progress">
                            <progress max={100} value={stage.percent} aria-label={t('Upload progress')} />
                            <span>{t('Uploading... {{percent}}%', { percent: stage.percent })}</span>
                        </div>
                    )}
                    {error && (
                        <p className="field-error" id={errorId}>
                            {error}
                        </p>
                    )}
                </>
            ) : (
                <>
                    <span className="profile-file-label">{label}</span>
                    <span className="profile-file-none">{t('No file attached')}</span>
                </>
            )}
        </div>
    );
};
