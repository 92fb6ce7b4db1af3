/**
 * /consultations/:id: one consultation's record. The stored transcript
 * (timestamps, speakers including the dose-constraint check), the summaries
 * and report drafts generated from it, and the note: edited from a draft,
 * saved with its version, signed, then only extended by addenda. A signed
 * note downloads as FHIR (a document Bundle) and as PDF.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Spinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import {
    downloadExport,
    generateDraft,
    getConsultation,
    type Consultation,
    type Draft,
    type DraftKind,
    type NoteTemplate,
} from '../api';
import { DraftsView } from '../components/DraftsView';
import { NoteEditor, toSections, type EditorDraft } from '../components/NoteEditor';
import { NoteTemplatePicker } from '../components/NoteTemplatePicker';
import { PatientReferenceEditor } from '../components/PatientReferenceEditor';
import { SignedNote } from '../components/SignedNote';
import { StateBadge, useConsoleName } from '../components/StateBadge';
import { useConsultationTitle } from '../components/title';
import { TranscriptView } from '../components/TranscriptView';
import { formatDateTime, formatDuration } from '../format';

import '../consultations.css';

type Load = { state: 'loading' } | { state: 'failed'; message: string; status?: number } | { state: 'loaded' };

const editorStart = (consultation: Consultation, from?: Draft): EditorDraft => {
    const radiology = consultation.console === 'radiologist';
    if (from) {
        const sections = toSections(from.sections);
        const structured = sections !== null && Object.values(sections).some(value => value.trim());
        // A radiology note is edited by section only: a draft the model did not split into
        // sections (a summary, a plain report) goes into the findings, where it can be seen.
        if (radiology && !structured)
            return { text: from.text, sections: { ...toSections({}), findings: from.text }, fromDraftId: from.id };
        return {
            text: from.text,
            sections: structured ? sections : radiology ? toSections({}) : null,
            fromDraftId: from.id,
        };
    }
    const note = consultation.note;
    if (note) return { text: note.text, sections: toSections(note.sections), fromDraftId: null };
    // Nothing saved yet: the note Cara wrote (at the visit's end, or when asked) is the start.
    const written = consultation.drafts.find(draft => draft.kind === 'note');
    if (written) return editorStart(consultation, written);
    return { text: '', sections: radiology ? toSections({}) : null, fromDraftId: null };
};

const ConsultationPage = () => {
    const { t, i18n } = useTranslation('consultations');
    const consoleName = useConsoleName();
    const titleOf = useConsultationTitle();
    const language = i18n.resolvedLanguage ?? 'en';
    const { id = '' } = useParams();
    const [load, setLoad] = useState<Load>({ state: 'loading' });
    const [consultation, setConsultation] = useState<Consultation | null>(null);
    const [editor, setEditor] = useState<{ key: number; start: EditorDraft } | null>(null);
    const [evidence, setEvidence] = useState<{ key: string | null; lines: Set<number> }>({ key: null, lines: new Set() });
    const [generating, setGenerating] = useState<DraftKind | null>(null);
    const [templates, setTemplates] = useState<readonly NoteTemplate[]>([]);
    const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
    const [downloading, setDownloading] = useState<'fhir' | 'pdf' | null>(null);

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
        void fetchOne().then(found => {
            if (!found) return;
            setEditor({ key: Date.now(), start: editorStart(found) });
            if (!found.note && found.state !== 'signed' && found.drafts.some(draft => draft.kind === 'note'))
                setNotice({ kind: 'success', text: t('Cara wrote this note from the visit. Review it, then save or sign.') });
        });
    }, [fetchOne, t]);

    // Signing closes the chapter: a notice about the drafts no longer applies.
    const isSigned = consultation?.state === 'signed' || Boolean(consultation?.note?.signed);
    useEffect(() => {
        if (isSigned) setNotice(null);
    }, [isSigned]);

    const showEvidence = (key: string | null, lines: readonly number[]) => {
        setEvidence({ key, lines: new Set(lines) });
        if (lines.length) document.getElementById(`line-${lines[0]}`)?.scrollIntoView({ block: 'center', behavior: 'smooth' });
    };

    const generate = async (kind: DraftKind, template?: NoteTemplate) => {
        setGenerating(kind);
        setNotice(null);
        const result = await generateDraft(id, kind, template?.id);
        setGenerating(null);
        if (!result.ok) {
            setNotice({ kind: 'error', text: t(result.message) });
            return;
        }
        const next = await fetchOne();
        setNotice({
            kind: 'success',
            text:
                kind === 'note'
                    ? t('The note is written in {{template}}. Review it, then save or sign.', { template: t(template?.title ?? '') })
                    : kind === 'report'
                      ? t('Report draft ready.')
                      : t('Summary ready.'),
        });
        // A note nobody saved yet starts from the new draft.
        if (next && !next.note) {
            const newest = next.drafts.find(draft => draft.id === result.data.draft?.id) ?? next.drafts[0];
            if (newest) setEditor({ key: Date.now(), start: editorStart(next, newest) });
        }
    };

    const download = async (format: 'fhir' | 'pdf') => {
        setDownloading(format);
        setNotice(null);
        const result = await downloadExport(id, format);
        setDownloading(null);
        if (!result.ok) setNotice({ kind: 'error', text: t(result.message) });
    };

    /** The signed note and its addenda as plain text, for a letter or a message. */
    const copySigned = async () => {
        const signedEntries = consultation?.note?.entries ?? [];
        const codes = consultation?.note?.codes ?? [];
        const text = [
            ...signedEntries.map(entry =>
                entry.kind === 'signature' ? entry.text : `${t('Addendum {{number}}', { number: entry.number - 1 })}\n${entry.text}`,
            ),
            codes.length ? `${t('Diagnoses (ICD-10)')}\n${codes.map(code => `${code.code} ${code.title}`).join('\n')}` : '',
        ]
            .filter(Boolean)
            .join('\n\n');
        try {
            await navigator.clipboard.writeText(text);
            setNotice({ kind: 'success', text: t('The signed note is copied.') });
        } catch {
            setNotice({ kind: 'error', text: t('The note could not be copied: select the text and copy it instead.') });
        }
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

    const signed = isSigned;
    const entries = consultation.note?.entries ?? [];
    const busy = generating !== null;

    return (
        <main className="page cons-page cons-detail" data-testid="consultation-page" data-state={consultation.state}>
            <nav className="cons-back">
                <Link to={paths.consultations}>{t('Back to consultations')}</Link>
            </nav>
            <header className="cons-header">
                <div className="cons-title-row">
                    <h1>{titleOf(consultation)}</h1>
                    <StateBadge state={consultation.state} />
                </div>
                <p className="cons-facts">
                    {[
                        consoleName(consultation.console),
                        consultation.source === 'recorded' ? t('Recorded offline') : null,
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

            {notice && (
                <Alert kind={notice.kind} onClose={() => setNotice(null)}>
                    <p data-testid="consultation-notice">{notice.text}</p>
                </Alert>
            )}

            <div className="cons-columns">
                <section className="card cons-panel" aria-labelledby="cons-transcript-heading">
                    <h2 id="cons-transcript-heading">{t('Transcript')}</h2>
                    <TranscriptView lines={consultation.lines} highlighted={evidence.lines} />
                </section>

                <div className="cons-side">
                    <section className="card cons-panel" aria-labelledby="cons-drafts-heading">
                        <h2 id="cons-drafts-heading">{t('Drafts')}</h2>
                        {!signed && (
                            <NoteTemplatePicker
                                console={consultation.console}
                                busy={generating === 'note'}
                                disabled={busy || !consultation.lineCount}
                                onWrite={template => void generate('note', template)}
                                onLoaded={setTemplates}
                            />
                        )}
                        <div className="cons-actions">
                            <Button
                                variant="secondary"
                                busy={generating === 'summary'}
                                disabled={busy || !consultation.lineCount}
                                onClick={() => void generate('summary')}
                                data-testid="generate-summary"
                            >
                                {t('Generate summary')}
                            </Button>
                            <Button
                                variant="secondary"
                                busy={generating === 'report'}
                                disabled={busy || !consultation.lineCount}
                                onClick={() => void generate('report')}
                                data-testid="generate-report"
                            >
                                {t('Generate report draft')}
                            </Button>
                        </div>
                        {busy && (
                            <p className="cons-muted" role="status" data-testid="generating">
                                {t('Cara is writing the draft from the stored transcript. This can take up to 30 seconds.')}
                            </p>
                        )}
                        {signed && (
                            <p className="cons-muted">{t('New drafts never change the signed note.')}</p>
                        )}
                        <DraftsView
                            drafts={consultation.drafts}
                            selected={evidence.key}
                            onSelectEvidence={showEvidence}
                            canUse={!signed}
                            templates={templates}
                            lines={consultation.lines}
                            onUseDraft={draft => {
                                setEditor({ key: Date.now(), start: editorStart(consultation, draft) });
                                setNotice({
                                    kind: 'success',
                                    text:
                                        draft.kind === 'note'
                                            ? t('The note now starts from the note Cara wrote. Review it, then save or sign.')
                                            : draft.kind === 'report'
                                              ? t('The note now starts from the report draft. Review it, then save or sign.')
                                              : t('The note now starts from the summary. Review it, then save or sign.'),
                                });
                                document.getElementById('cons-note-heading')?.scrollIntoView({ block: 'start', behavior: 'smooth' });
                            }}
                        />
                    </section>

                    <section className="card cons-panel" aria-labelledby="cons-note-heading">
                        <h2 id="cons-note-heading">{t('Note')}</h2>
                        {signed ? (
                            <>
                                <SignedNote
                                    consultation={consultation}
                                    entries={entries}
                                    codes={consultation.note?.codes ?? []}
                                    onChanged={() => void fetchOne()}
                                />
                                <div className="cons-actions cons-downloads">
                                    <Button
                                        variant="secondary"
                                        busy={downloading === 'fhir'}
                                        onClick={() => void download('fhir')}
                                        data-testid="download-fhir"
                                    >
                                        {t('Download FHIR')}
                                    </Button>
                                    <Button
                                        variant="secondary"
                                        busy={downloading === 'pdf'}
                                        onClick={() => void download('pdf')}
                                        data-testid="download-pdf"
                                    >
                                        {t('Download PDF')}
                                    </Button>
                                    <Button variant="secondary" onClick={() => void copySigned()} data-testid="copy-note">
                                        {t('Copy text')}
                                    </Button>
                                    <Button variant="secondary" onClick={() => window.print()} data-testid="print-note">
                                        {t('Print')}
                                    </Button>
                                </div>
                            </>
                        ) : (
                            editor && (
                                <NoteEditor
                                    key={editor.key}
                                    consultation={consultation}
                                    initial={editor.start}
                                    reload={fetchOne}
                                    onShowEvidence={lines => showEvidence('codes', lines)}
                                />
                            )
                        )}
                    </section>
                </div>
            </div>
        </main>
    );
};

export default ConsultationPage;
