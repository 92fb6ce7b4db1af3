/**
 * The radiologist's studies for the open consultation: drop DICOM files, a
 * folder or a zip (or choose them), see the upload's progress, then the
 * studies the PACS holds for this consultation. A refusal shows the server's
 * message, which names the file or the PACS setting. Files go in parts
 * (batches.ts): a part lost on the network is sent again, and an upload
 * stopped by the link can be resumed from the part it reached.
 */
import { useCallback, useEffect, useId, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { consultationStudies, droppedFiles, uploadStudies, type Study } from './api';
import { firstNotDicom, planBatches, sendBatches } from './batches';

type Progress = { status: 'idle' } | { status: 'uploading'; fraction: number } | { status: 'done'; stored: number };

interface StudyUploadProps {
    /** The live consultation the studies are attached to (null until one is open). */
    consultationId: string | null;
}

export const StudyUpload = ({ consultationId }: StudyUploadProps) => {
    const { t, i18n } = useTranslation('consoles');
    const [studies, setStudies] = useState<Study[]>([]);
    const [progress, setProgress] = useState<Progress>({ status: 'idle' });
    const [error, setError] = useState<string | null>(null);
    const [over, setOver] = useState(false);
    const [resume, setResume] = useState<{ batches: File[][]; from: number; stored: number } | null>(null);
    const filesInput = useRef<HTMLInputElement>(null);
    const folderInput = useRef<HTMLInputElement>(null);
    const headingId = useId();
    const hintId = useId();

    const refresh = useCallback(async (id: string) => {
        const result = await consultationStudies(id);
        if (result.ok) setStudies(result.data);
    }, []);

    useEffect(() => {
        setStudies([]);
        setProgress({ status: 'idle' });
        setError(null);
        setResume(null);
        if (consultationId) void refresh(consultationId);
    }, [consultationId, refresh]);

    // Chromium only lets a script set this attribute: React does not know it.
    useEffect(() => {
        folderInput.current?.setAttribute('webkitdirectory', '');
    }, []);

    const run = async (batches: File[][], from: number, storedBefore: number) => {
        if (!consultationId) return;
        setError(null);
        setResume(null);
        setProgress({ status: 'uploading', fraction: 0 });
        const result = await sendBatches(
            batches,
            (batch, onProgress) => uploadStudies(consultationId, batch, onProgress),
            fraction => setProgress({ status: 'uploading', fraction }),
            { from },
        );
        const stored = storedBefore + result.stored.reduce((sum, part) => sum + part.storedInstances, 0);
        setProgress(stored ? { status: 'done', stored } : { status: 'idle' });
        const refused = result.stored.flatMap(part => part.failedFiles ?? []);
        if (result.stopped) {
            setError(t(result.stopped.message));
            if (result.stopped.resumable) setResume({ batches, from: result.done, stored });
        } else if (refused.length) {
            setError(refused.map(item => `${item.file}: ${item.reason}`).join('\n'));
        }
        await refresh(consultationId);
    };

    const send = async (files: File[]) => {
        if (!consultationId || !files.length || progress.status === 'uploading') return;
        setError(null); // a new choice of files: the last one's message no longer stands
        // The commonest mistake is named before anything is sent, so nothing of the set is stored.
        const notDicom = await firstNotDicom(files);
        if (notDicom) {
            setResume(null);
            setError(
                t('Nothing was stored: {{name}} is not a DICOM file.', {
                    name: notDicom.webkitRelativePath || notDicom.name,
                }),
            );
            return;
        }
        await run(planBatches(files), 0, 0);
    };

    const onDrop = async (event: DragEvent<HTMLDivElement>) => {
        event.preventDefault();
        setOver(false);
        if (!consultationId) return;
        await send(await droppedFiles(event.dataTransfer));
    };

    const disabled = !consultationId || progress.status === 'uploading';
    const percent = progress.status === 'uploading' ? Math.round(progress.fraction * 100) : 0;
    const date = (value: string | null | undefined) =>
        value ? new Date(`${value}T00:00:00Z`).toLocaleDateString(i18n.language, { timeZone: 'UTC' }) : '';

    return (
        <section className="console-studies" aria-labelledby={headingId} data-testid="study-upload">
            <h2 id={headingId}>{t('Imaging studies')}</h2>
            {!consultationId && (
                <p className="console-hint" id={hintId}>
                    {t('Connect to start a consultation, then bring its studies in.')}
                </p>
            )}
            <div
                className={`study-drop${over ? ' is-over' : ''}`}
                data-testid="study-drop"
                aria-disabled={disabled}
                onDragOver={event => {
                    event.preventDefault();
                    if (!disabled) setOver(true);
                }}
                onDragLeave={() => setOver(false)}
                onDrop={event => void onDrop(event)}
            >
                <p>{t('Drop DICOM files, a folder or a zip here')}</p>
                <div className="study-drop-actions">
                    <button
                        type="button"
                        className="btn btn-secondary"
                        disabled={disabled}
                        aria-describedby={consultationId ? undefined : hintId}
                        onClick={() => filesInput.current?.click()}
                    >
                        {t('Choose files')}
                    </button>
                    <button
                        type="button"
                        className="btn btn-secondary"
                        disabled={disabled}
                        aria-describedby={consultationId ? undefined : hintId}
                        onClick={() => folderInput.current?.click()}
                    >
                        {t('Choose a folder')}
                    </button>
                </div>
                <input
                    ref={filesInput}
                    type="file"
                    multiple
                    hidden
                    accept=".dcm,.dicom,.zip,application/dicom,application/zip"
                    data-testid="study-files"
                    onChange={event => {
                        const chosen = Array.from(event.target.files ?? []);
                        event.target.value = '';
                        void send(chosen);
                    }}
                />
                <input
                    ref={folderInput}
                    type="file"
                    multiple
                    hidden
                    data-testid="study-folder"
                    onChange={event => {
                        const chosen = Array.from(event.target.files ?? []);
                        event.target.value = '';
                        void send(chosen);
                    }}
                />
            </div>
            {progress.status === 'uploading' && (
                <div className="study-progress" role="status" data-testid="study-progress">
                    <progress max={100} value={percent} aria-label={t('Upload progress')} />
                    <span>{t('Uploading… {{number}}%', { number: percent })}</span>
                </div>
            )}
            {progress.status === 'done' && (
                <p role="status" data-testid="study-stored">
                    {t('Images stored: {{number}}', { number: progress.stored })}
                </p>
            )}
            {error && (
                <Alert kind="error" onClose={() => setError(null)}>
                    <p className="study-error" data-testid="study-error">
                        {error}
                    </p>
                    {resume && (
                        <button
                            type="button"
                            className="btn btn-secondary"
                            onClick={() => void run(resume.batches, resume.from, resume.stored)}
                        >
                            {t('Resume upload')}
                        </button>
                    )}
                </Alert>
            )}
            {consultationId && (
                <>
                    <h3>{t('Studies of this consultation')}</h3>
                    {studies.length === 0 ? (
                        <p data-testid="studies-empty">{t('No study attached yet.')}</p>
                    ) : (
                        <ul className="study-list" data-testid="study-list">
                            {studies.map(study => (
                                <li key={study.studyInstanceUid} data-uid={study.studyInstanceUid}>
                                    <strong>{study.patientName?.replace(/\^/g, ' ') ?? t('Unnamed patient')}</strong>
                                    <span>{[study.modalities.join(', '), date(study.studyDate)].filter(Boolean).join(' · ')}</span>
                                    {study.accessionNumber && (
                                        <span>{t('Accession: {{number}}', { number: study.accessionNumber })}</span>
                                    )}
                                    <span>{t('Images: {{number}}', { number: study.instanceCount ?? 0 })}</span>
                                </li>
                            ))}
                        </ul>
                    )}
                </>
            )}
        </section>
    );
};
