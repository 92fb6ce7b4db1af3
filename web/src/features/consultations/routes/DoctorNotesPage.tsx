/**
 * A hospital's view of its doctors' signed notes, read-only: all of them at
 * /signed-notes (each with its doctor's name), or one doctor's at
 * /doctors/:doctorId/notes. The list shows the signed consultations; opening
 * one reads its note (each read is recorded in the audit log by the server).
 * Drafts never show here.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Spinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import {
    downloadSignedExport,
    listSignedNotes,
    readSignedNote,
    type SignedNoteDetail,
    type SignedNoteSummary,
} from '../api';
import { DraftChanges } from '../components/DraftChanges';
import { usePatientReferenceText } from '../components/PatientReferenceEditor';
import { SignedNote } from '../components/SignedNote';
import { useConsoleName } from '../components/StateBadge';
import { useConsultationTitle } from '../components/title';
import { formatDateTime } from '../format';

import '../consultations.css';

type Load =
    | { state: 'loading' }
    | { state: 'failed'; message: string; status?: number }
    | { state: 'loaded'; items: SignedNoteSummary[]; cursor: string | null; more: boolean };

type Opened = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; note: SignedNoteDetail };

/** One signed consultation: its note is read when the hospital opens it. */
const SignedNoteRow = ({ item, withDoctor }: { item: SignedNoteSummary; withDoctor: boolean }) => {
    const { t, i18n } = useTranslation('consultations');
    const language = i18n.resolvedLanguage ?? 'en';
    const consoleName = useConsoleName();
    const titleOf = useConsultationTitle();
    const describe = usePatientReferenceText();
    const [opened, setOpened] = useState<Opened | null>(null);
    const [downloading, setDownloading] = useState<'fhir' | 'pdf' | null>(null);
    const [downloadError, setDownloadError] = useState<string | null>(null);

    const download = async (format: 'fhir' | 'pdf') => {
        setDownloading(format);
        setDownloadError(null);
        const result = await downloadSignedExport(item.id, format);
        setDownloading(null);
        if (!result.ok) setDownloadError(result.message);
    };

    const open = async () => {
        if (opened && opened.state !== 'failed') return;
        setOpened({ state: 'loading' });
        const result = await readSignedNote(item.id);
        setOpened(result.ok ? { state: 'loaded', note: result.data } : { state: 'failed', message: result.message });
    };

    return (
        <li className="card cons-item" data-testid="signed-note-row">
            <details onToggle={event => (event.currentTarget.open ? void open() : undefined)}>
                <summary className="cons-item-head">
                    <span className="cons-item-title">{titleOf(item)}</span>
                    <span className="cons-muted">
                        {[
                            withDoctor ? item.doctorName : '',
                            consoleName(item.console),
                            formatDateTime(item.signedAt ?? item.startedAt, language),
                            describe(item.patientReference),
                        ]
                            .filter(Boolean)
                            .join(' · ')}
                    </span>
                </summary>
                {opened?.state === 'loading' && <Spinner />}
                {opened?.state === 'failed' && (
                    <Alert kind="error">
                        <p>{t(opened.message)}</p>
                    </Alert>
                )}
                {opened?.state === 'loaded' && (
                    <>
                        <SignedNote consultation={item} entries={opened.note.note.entries} readOnly />
                        <div className="cons-actions cons-downloads">
                            <Button
                                variant="secondary"
                                busy={downloading === 'fhir'}
                                onClick={() => void download('fhir')}
                                data-testid="signed-download-fhir"
                            >
                                {t('Download FHIR')}
                            </Button>
                            <Button
                                variant="secondary"
                                busy={downloading === 'pdf'}
                                onClick={() => void download('pdf')}
                                data-testid="signed-download-pdf"
                            >
                                {t('Download PDF')}
                            </Button>
                        </div>
                        {downloadError && (
                            <Alert kind="error">
                                <p>{t(downloadError)}</p>
                            </Alert>
                        )}
                    </>
                )}
            </details>
        </li>
    );
};

const DoctorNotesPage = () => {
    const { t } = useTranslation('consultations');
    // No doctor in the path: every doctor's notes.
    const doctorId = useParams().doctorId ?? null;
    // The doctor list passes the name; the notes carry it too.
    const linkedName = (useLocation().state as { name?: string } | null)?.name ?? '';
    const [load, setLoad] = useState<Load>({ state: 'loading' });

    const fetchFirst = useCallback(async () => {
        setLoad({ state: 'loading' });
        const result = await listSignedNotes(doctorId, null);
        setLoad(
            result.ok
                ? { state: 'loaded', items: result.data.items, cursor: result.data.nextCursor ?? null, more: false }
                : { state: 'failed', message: result.message, status: result.status },
        );
    }, [doctorId]);

    useEffect(() => {
        void fetchFirst();
    }, [fetchFirst]);

    const loadMore = async () => {
        if (load.state !== 'loaded' || !load.cursor) return;
        setLoad({ ...load, more: true });
        const result = await listSignedNotes(doctorId, load.cursor);
        setLoad(current =>
            current.state !== 'loaded'
                ? current
                : result.ok
                  ? {
                        ...current,
                        items: [...current.items, ...result.data.items],
                        cursor: result.data.nextCursor ?? null,
                        more: false,
                    }
                  : { ...current, more: false },
        );
    };

    const name = doctorId ? (load.state === 'loaded' && load.items[0]?.doctorName) || linkedName : '';
    return (
        <main className="page cons-page" data-testid="doctor-notes-page">
            {doctorId && (
                <nav className="cons-back">
                    <Link to={paths.manage}>{t('Back to doctors')}</Link>
                </nav>
            )}
            <header className="cons-header">
                <h1>{name ? t('Signed notes of {{name}}', { name }) : t('Signed notes')}</h1>
                <p className="cons-intro">{t('Signed notes only, read-only. Each view is recorded in the audit log.')}</p>
            </header>
            {load.state === 'loading' && (
                <div className="page-loading">
                    <Spinner label={t('Loading signed notes...')} />
                </div>
            )}
            {load.state === 'failed' && (
                <Alert kind="error" title={load.status === 404 ? t('Doctor not found.') : t('Could not load the signed notes.')}>
                    {load.status !== 404 && <p>{t(load.message)}</p>}
                    <Button variant="secondary" onClick={() => void fetchFirst()}>
                        {t('Try again')}
                    </Button>
                </Alert>
            )}
            {load.state === 'loaded' && load.items.length === 0 && (
                <p className="cons-empty card" data-testid="signed-notes-empty">
                    {doctorId ? t('This doctor has no signed notes yet.') : t('Your doctors have no signed notes yet.')}
                </p>
            )}
            {load.state === 'loaded' && load.items.length > 0 && (
                <ul className="cons-list" data-testid="signed-notes">
                    {load.items.map(item => (
                        <SignedNoteRow key={item.id} item={item} withDoctor={!doctorId} />
                    ))}
                </ul>
            )}
            {load.state === 'loaded' && load.cursor && (
                <div className="cons-more">
                    <Button variant="secondary" busy={load.more} onClick={() => void loadMore()}>
                        {t('Load more')}
                    </Button>
                </div>
            )}
            {!doctorId && <DraftChanges />}
        </main>
    );
};

export default DoctorNotesPage;
