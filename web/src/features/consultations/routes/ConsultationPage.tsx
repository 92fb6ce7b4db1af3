/**
 * /consultations/:id: one consultation's record. The stored transcript
 * (timestamps, speakers including the dose-constraint check), the summaries
 * and report drafts generated from it (a sentence with evidence highlights
 * its transcript lines), the patient reference, and the note.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Spinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import { getConsultation, type Consultation } from '../api';
import { DraftsView } from '../components/DraftsView';
import { PatientReferenceEditor } from '../components/PatientReferenceEditor';
import { StateBadge, useConsoleName } from '../components/StateBadge';
import { TranscriptView } from '../components/TranscriptView';
import { formatDateTime, formatDuration } from '../format';

import '../consultations.css';

type Load = { state: 'loading' } | { state: 'failed'; message: string; status?: number } | { state: 'loaded' };

const ConsultationPage = () => {
    const { t, i18n } = useTranslation('consultations');
    const consoleName = useConsoleName();
    const language = i18n.resolvedLanguage ?? 'en';
    const { id = '' } = useParams();
    const [load, setLoad] = useState<Load>({ state: 'loading' });
    const [consultation, setConsultation] = useState<Consultation | null>(null);
    const [evidence, setEvidence] = useState<{ key: string | null; lines: Set<number> }>({ key: null, lines: new Set() });

    const fetchOne = useCallback(async (): Promise<Consultation | null> => {
        const result = await getConsultation(id);
        if (!result.ok) {
            setLoad({ state: 'failed', message: result.message, status: result.status });
            return null;
        }
        setConsultation(result.data);
        setLoad({ state: 'loaded' });
        return result.data;
    }, [id]);

    useEffect(() => {
        setLoad({ state: 'loading' });
        void fetchOne();
    }, [fetchOne]);

    const showEvidence = (key: string | null, lines: readonly number[]) => {
        setEvidence({ key, lines: new Set(lines) });
        if (lines.length) document.getElementById(`line-${lines[0]}`)?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    };

    if (load.state === 'loading' && !consultation)
        return (
            <main className="page cons-page">
                <div className="page-loading">
                    <Spinner label={t('Loading the consultation...')} />
                </div>
            </main>
        );
    if (load.state === 'failed' && !consultation)
        return (
            <main className="page cons-page">
                <h1>{t('Consultation')}</h1>
                <Alert kind="error" title={load.status === 404 ? t('Consultation not found.') : t('Could not load the consultation.')}>
                    {load.status !== 404 && <p>{t(load.message)}</p>}
                </Alert>
                <Link to={paths.consultations}>{t('Back to consultations')}</Link>
            </main>
        );
    if (!consultation) return null;

    return (
        <main className="page cons-page cons-detail" data-testid="consultation-page" data-state={consultation.state}>
            <nav className="cons-back">
                <Link to={paths.consultations}>{t('Back to consultations')}</Link>
            </nav>
            <header className="cons-header">
                <div className="cons-title-row">
                    <h1>{consultation.title || t('Untitled consultation')}</h1>
                    <StateBadge state={consultation.state} />
                </div>
                <p className="cons-facts">
                    {[
                        consoleName(consultation.console),
                        formatDateTime(consultation.startedAt, language),
                        formatDuration(consultation.durationSeconds),
                        t('{{count}} lines', { count: consultation.lineCount }),
                    ]
                        .filter(Boolean)
                        .join(' · ')}
                </p>
                <PatientReferenceEditor
                    consultation={consultation}
                    onSaved={next => setConsultation(current => (current ? { ...current, ...next } : current))}
                />
            </header>

            <div className="cons-columns">
                <section className="card cons-panel" aria-labelledby="cons-transcript-heading">
                    <h2 id="cons-transcript-heading">{t('Transcript')}</h2>
                    <TranscriptView lines={consultation.lines} highlighted={evidence.lines} />
                </section>

                <div className="cons-side">
                    <section className="card cons-panel" aria-labelledby="cons-drafts-heading">
                        <h2 id="cons-drafts-heading">{t('Drafts')}</h2>
                        <DraftsView
                            drafts={consultation.drafts}
                            selected={evidence.key}
                            onSelectEvidence={showEvidence}
                            canUse={false}
                            onUseDraft={() => undefined}
                        />
                    </section>

                    <section className="card cons-panel" aria-labelledby="cons-note-heading">
                        <h2 id="cons-note-heading">{t('Note')}</h2>
                        {consultation.note ? (
                            <p className="cons-entry-text" data-testid="note-text">
                                {consultation.note.text}
                            </p>
                        ) : (
                            <p className="cons-muted">{t('Not saved yet')}</p>
                        )}
                    </section>
                </div>
            </div>
        </main>
    );
};

export default ConsultationPage;
