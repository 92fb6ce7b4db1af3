import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextAreaField } from '@/components/ui/Field';
import { Modal } from '@/components/ui/Modal';
import { saveNote, signNote, type Consultation, type DiagnosisCode, type NoteBody } from '../api';
import { CodeList } from './CodeList';
import { draftSafety } from './safety';
import { RADIOLOGY_SECTIONS, SECTION_LABELS, sectionsForServer, sectionText } from './sections';

/**
 * The note editor: the doctor's text, marked 'Draft — AI-assisted' until
 * signed. Radiology notes are edited by section (the impression one item per
 * line). Saving sends the version the edit started from; when another window
 * saved first the server answers 409 and the editor keeps this text, showing
 * the other version next to it with the choice to use it or to save this
 * text over it. Signing asks for confirmation: the signed version can never
 * change afterwards.
 */
export interface EditorDraft {
    text: string;
    sections: Record<string, string> | null;
    fromDraftId?: string | null;
}

/** Every code a draft of this consultation proposed, and those already accepted, once each. */
export const codesOnOffer = (consultation: Consultation): DiagnosisCode[] => {
    const seen = new Map<string, DiagnosisCode>();
    for (const code of consultation.note?.codes ?? []) seen.set(code.code, code);
    for (const draft of consultation.drafts) for (const code of draft.codes ?? []) if (!seen.has(code.code)) seen.set(code.code, code);
    return [...seen.values()];
};

/** A draft's or note's sections as editor text (null when it has none). */
export const toSections = (value: unknown): Record<string, string> | null => {
    if (!value || typeof value !== 'object') return null;
    const source = value as Record<string, unknown>;
    return Object.fromEntries(RADIOLOGY_SECTIONS.map(key => [key, sectionText(source[key])]));
};

export const NoteEditor = ({
    consultation,
    initial,
    reload,
    onShowEvidence,
}: {
    consultation: Consultation;
    initial: EditorDraft;
    /** Reads the consultation again (after a save, a sign or a conflict); null when that failed. */
    reload: () => Promise<Consultation | null>;
    onShowEvidence?: (lineIds: readonly number[]) => void;
}) => {
    const { t } = useTranslation('consultations');
    const [draft, setDraft] = useState<EditorDraft>(initial);
    const [version, setVersion] = useState<number>(consultation.note?.version ?? 0);
    const [saving, setSaving] = useState(false);
    const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
    const [conflict, setConflict] = useState<Consultation | null>(null);
    const [confirmSign, setConfirmSign] = useState(false);
    const [signing, setSigning] = useState(false);
    const [dirty, setDirty] = useState(!consultation.note && Boolean(initial.fromDraftId));
    const structured = draft.sections !== null;
    const offered = codesOnOffer(consultation);
    const [accepted, setAccepted] = useState<ReadonlySet<string>>(
        () => new Set((consultation.note?.codes ?? []).map(code => code.code)),
    );

    const body = (baseVersion: number): NoteBody => ({
        ...(structured ? { sections: sectionsForServer(draft.sections ?? {}) } : { text: draft.text }),
        version: baseVersion,
        fromDraftId: baseVersion === 0 ? (draft.fromDraftId ?? null) : null,
        codes: offered.filter(code => accepted.has(code.code)).map(code => code.code),
    });

    /** The new version, or null when the save failed (the message says why). */
    const save = async (baseVersion = version): Promise<number | null> => {
        setSaving(true);
        setMessage(null);
        const result = await saveNote(consultation.id, body(baseVersion));
        setSaving(false);
        if (result.ok) {
            setConflict(null);
            setDirty(false);
            setVersion(result.data.version);
            setMessage({ kind: 'success', text: t('Note saved (version {{version}}).', { version: result.data.version }) });
            void reload();
            return result.data.version;
        }
        if (result.status === 409) {
            const latest = await reload();
            if (latest?.note && !latest.note.signed) {
                setConflict(latest);
                setMessage({ kind: 'error', text: t('Someone saved this note in another window. Your text is kept below.') });
                return null;
            }
        }
        setMessage({ kind: 'error', text: t(result.message) });
        return null;
    };

    const sign = async () => {
        setSigning(true);
        setMessage(null);
        // Unsaved changes are saved first: the signature covers what is on screen.
        const current = dirty || !version ? await save() : version;
        if (current === null) {
            setSigning(false);
            setConfirmSign(false);
            return;
        }
        const result = await signNote(consultation.id, current);
        setSigning(false);
        setConfirmSign(false);
        if (result.ok) void reload();
        else setMessage({ kind: 'error', text: t(result.message) });
    };

    const edit = (next: Partial<EditorDraft>) => {
        setDraft(current => ({ ...current, ...next }));
        setDirty(true);
    };

    const latestNote = conflict?.note;
    const sourceId = draft.fromDraftId ?? consultation.note?.sourceDraftId ?? null;
    const safety = draftSafety(
        consultation.drafts.find(item => item.id === sourceId),
        consultation.lines,
    );
    return (
        <div className="cons-editor" data-testid="note-editor">
            <p className="cons-ai-label" data-testid="ai-label">
                {t('Draft — AI-assisted')}
            </p>
            {structured ? (
                RADIOLOGY_SECTIONS.map(key => (
                    <TextAreaField
                        key={key}
                        label={t(SECTION_LABELS[key])}
                        value={draft.sections?.[key] ?? ''}
                        rows={key === 'findings' || key === 'impression' ? 5 : 2}
                        dir="auto"
                        onChange={event => edit({ sections: { ...(draft.sections ?? {}), [key]: event.target.value } })}
                        data-section={key}
                    />
                ))
            ) : (
                <TextAreaField
                    label={t('Note')}
                    value={draft.text}
                    rows={14}
                    dir="auto"
                    onChange={event => edit({ text: event.target.value })}
                    data-testid="note-text"
                />
            )}
            {offered.length > 0 && (
                <fieldset className="cons-note-codes">
                    <legend>{t('Diagnoses (ICD-10)')}</legend>
                    <p className="cons-muted">{t('Tick each code to keep with the note; unticked codes are left out.')}</p>
                    <CodeList
                        codes={offered}
                        accepted={accepted}
                        testId="note-codes"
                        onShowEvidence={onShowEvidence}
                        onToggle={code => {
                            setAccepted(current => {
                                const next = new Set(current);
                                if (next.has(code)) next.delete(code);
                                else next.add(code);
                                return next;
                            });
                            setDirty(true);
                        }}
                    />
                </fieldset>
            )}
            {message && (
                <Alert kind={message.kind} onClose={() => setMessage(null)}>
                    <p data-testid="note-message">{message.text}</p>
                </Alert>
            )}
            {latestNote && (
                <div className="cons-conflict card" data-testid="note-conflict">
                    <h3>{t('The other version (version {{version}})', { version: latestNote.version })}</h3>
                    <pre className="cons-conflict-text" dir="auto">
                        {latestNote.text}
                    </pre>
                    <div className="cons-actions">
                        <Button
                            variant="secondary"
                            onClick={() => {
                                setDraft({
                                    text: latestNote.text,
                                    sections: structured ? (toSections(latestNote.sections) ?? {}) : null,
                                    fromDraftId: null,
                                });
                                setVersion(latestNote.version);
                                setConflict(null);
                                setMessage(null);
                                setDirty(false);
                            }}
                        >
                            {t('Use the other version')}
                        </Button>
                        <Button onClick={() => void save(latestNote.version)} busy={saving}>
                            {t('Save my text over it')}
                        </Button>
                    </div>
                </div>
            )}
            <div className="cons-actions">
                <span className="cons-muted" data-testid="note-version">
                    {version ? t('Version {{version}}', { version }) : t('Not saved yet')}
                </span>
                <Button variant="secondary" busy={saving} onClick={() => void save()} data-testid="note-save">
                    {t('Save')}
                </Button>
                <Button onClick={() => setConfirmSign(true)} disabled={saving} data-testid="note-sign">
                    {t('Sign')}
                </Button>
            </div>
            {confirmSign && (
                <Modal title={t('Sign this note?')} onClose={() => setConfirmSign(false)} closable={!signing}>
                    <p>
                        {t(
                            'Signing makes this version final: your name, the time and a fingerprint of the text are recorded. Later changes can only be added as addenda.',
                        )}
                    </p>
                    {safety.checked && (safety.unsupported.length > 0 || safety.omitted.length > 0) && (
                        <div className="cons-safety" data-testid="sign-safety">
                            <p>
                                <strong>{t('Before you sign, check the draft this note started from:')}</strong>
                            </p>
                            <ul>
                                {safety.unsupported.length > 0 && (
                                    <li>
                                        {t('Sentences on no transcript line: {{number}}', { number: safety.unsupported.length })}
                                    </li>
                                )}
                                {safety.omitted.length > 0 && (
                                    <li>{t('Transcript lines no sentence uses: {{number}}', { number: safety.omitted.length })}</li>
                                )}
                            </ul>
                        </div>
                    )}
                    <div className="sub-modal-footer">
                        <Button variant="secondary" onClick={() => setConfirmSign(false)} disabled={signing}>
                            {t('Cancel')}
                        </Button>
                        <Button busy={signing} onClick={() => void sign()} data-testid="confirm-sign">
                            {t('Sign the note')}
                        </Button>
                    </div>
                </Modal>
            )}
        </div>
    );
};
