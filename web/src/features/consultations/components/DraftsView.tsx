import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import type { Draft, NoteTemplate, TranscriptLine } from '../api';
import { formatDateTime } from '../format';
import { CodeList } from './CodeList';
import { draftSafety } from './safety';
import { RADIOLOGY_SECTIONS, SECTION_LABELS, sectionText } from './sections';

/**
 * The summaries, report drafts and notes generated for this consultation,
 * newest first, each with the model, prompt version and time it came from (a
 * note with its template). When the model said which transcript lines a
 * sentence came from, the sentence is a button that highlights those lines;
 * the ICD-10 codes a note proposes show the lines they rest on the same way.
 */
export const DraftsView = ({
    drafts,
    selected,
    onSelectEvidence,
    onUseDraft,
    canUse,
    templates = [],
    lines = [],
}: {
    drafts: readonly Draft[];
    /** `${draftId}:${index}` of the sentence whose lines are highlighted. */
    selected: string | null;
    onSelectEvidence: (key: string | null, lineIds: readonly number[]) => void;
    onUseDraft: (draft: Draft) => void;
    canUse: boolean;
    templates?: readonly NoteTemplate[];
    /** The consultation's transcript, to list what no sentence uses. */
    lines?: readonly TranscriptLine[];
}) => {
    const { t, i18n } = useTranslation('consultations');
    const language = i18n.resolvedLanguage ?? 'en';
    if (!drafts.length) return <p className="cons-muted">{t('No summary or report draft yet.')}</p>;
    return (
        <ul className="cons-drafts">
            {drafts.map(draft => {
                const evidence = (draft.evidence ?? []).filter(item => item.sentence?.trim());
                const sections = draft.sections && Object.keys(draft.sections).length ? draft.sections : null;
                const safety = draftSafety(draft, lines);
                return (
                    <li key={draft.id} className="cons-draft" data-testid="draft" data-kind={draft.kind}>
                        <div className="cons-draft-head">
                            <strong>
                                {draft.kind === 'note'
                                    ? t('Note draft: {{template}}', {
                                          template: t(
                                              templates.find(item => item.id === draft.templateId)?.title ??
                                                  draft.templateTitle ??
                                                  draft.templateId ??
                                                  '',
                                          ),
                                      })
                                    : draft.kind === 'report'
                                      ? t('Report draft')
                                      : t('Summary')}
                            </strong>
                            <span className="cons-ai-label">{t('Draft — AI-assisted')}</span>
                        </div>
                        <p className="cons-draft-meta">
                            {t('{{model}}, prompt {{version}}, {{time}}', {
                                model: draft.model,
                                version: draft.promptVersion,
                                time: formatDateTime(draft.createdAt, language),
                            })}
                        </p>
                        {evidence.length > 0 ? (
                            <p className="cons-draft-text" dir="auto">
                                {evidence.map((item, index) => {
                                    const key = `${draft.id}:${index}`;
                                    const lines = item.lineIds ?? [];
                                    if (!lines.length)
                                        return (
                                            <span key={key}>
                                                <span
                                                    className="cons-unsupported"
                                                    title={t('No transcript line supports this sentence: check it before signing.')}
                                                    data-testid="unsupported-sentence"
                                                >
                                                    {item.sentence}
                                                    <span className="cons-unsupported-mark"> ({t('no source')})</span>
                                                </span>{' '}
                                            </span>
                                        );
                                    const active = selected === key;
                                    return (
                                        <span key={key}>
                                            <button
                                                type="button"
                                                className={`cons-sentence${active ? ' is-active' : ''}`}
                                                aria-pressed={active}
                                                title={t('Show the transcript lines this sentence came from')}
                                                data-testid="evidence-sentence"
                                                onClick={() => onSelectEvidence(active ? null : key, active ? [] : lines)}
                                            >
                                                {item.sentence}
                                            </button>{' '}
                                        </span>
                                    );
                                })}
                            </p>
                        ) : sections ? (
                            <dl className="cons-sections">
                                {RADIOLOGY_SECTIONS
                                    .filter(name => sectionText(sections[name]).trim())
                                    .map(name => (
                                        <div key={name}>
                                            <dt>{SECTION_LABELS[name] ? t(SECTION_LABELS[name]) : name}</dt>
                                            <dd>{sectionText(sections[name])}</dd>
                                        </div>
                                    ))}
                            </dl>
                        ) : (
                            <p className="cons-draft-text" dir="auto">
                                {draft.text}
                            </p>
                        )}
                        {safety.omitted.length > 0 && (
                            <details className="cons-omissions" data-testid="draft-omissions">
                                <summary>{t('Possibly left out: {{number}}', { number: safety.omitted.length })}</summary>
                                <ul>
                                    {safety.omitted.map(line => (
                                        <li key={line.id}>
                                            <button
                                                type="button"
                                                className="cons-sentence"
                                                onClick={() => onSelectEvidence(`${draft.id}:omitted:${line.id}`, [line.id])}
                                                dir="auto"
                                            >
                                                {line.text}
                                            </button>
                                        </li>
                                    ))}
                                </ul>
                            </details>
                        )}
                        {(draft.codes ?? []).length > 0 && (
                            <div className="cons-draft-codes">
                                <h3>{t('Proposed codes (ICD-10)')}</h3>
                                <CodeList
                                    codes={draft.codes ?? []}
                                    testId="draft-codes"
                                    onShowEvidence={lines => onSelectEvidence(`${draft.id}:codes`, lines)}
                                />
                            </div>
                        )}
                        {canUse && (
                            <Button variant="secondary" onClick={() => onUseDraft(draft)} data-testid="use-draft">
                                {t('Start the note from this draft')}
                            </Button>
                        )}
                    </li>
                );
            })}
        </ul>
    );
};
