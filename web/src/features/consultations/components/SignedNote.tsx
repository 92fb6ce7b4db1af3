import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextAreaField } from '@/components/ui/Field';
import { addAddendum, type DiagnosisCode, type NoteEntry } from '../api';
import { formatDateTime } from '../format';
import { CodeList } from './CodeList';

/**
 * A signed note, read-only: the signed text, who signed it, when, and the
 * SHA-256 fingerprint of the signed content; then its addenda, each signed
 * the same way. The owning doctor can add an addendum (never an overwrite).
 */
export const SignedNote = ({
    consultation,
    entries,
    onChanged,
    readOnly = false,
    codes = [],
}: {
    consultation: { id: string };
    entries: readonly NoteEntry[];
    /** The ICD-10 codes signed with the note. */
    codes?: readonly DiagnosisCode[];
    /** An addendum was added. */
    onChanged?: () => void;
    readOnly?: boolean;
}) => {
    const { t, i18n } = useTranslation('consultations');
    const language = i18n.resolvedLanguage ?? 'en';
    const [text, setText] = useState('');
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState<string | null>(null);

    const submit = async () => {
        if (!text.trim()) {
            setError(t('Write the addendum first.'));
            return;
        }
        setBusy(true);
        setError(null);
        const result = await addAddendum(consultation.id, text.trim());
        setBusy(false);
        if (result.ok) {
            setText('');
            onChanged?.();
        } else setError(t(result.message));
    };

    return (
        <div className="cons-signed" data-testid="signed-note">
            {entries.map(entry => (
                <article key={entry.number} className="cons-entry" data-testid="note-entry" data-kind={entry.kind}>
                    <h3>{entry.kind === 'signature' ? t('Signed note') : t('Addendum {{number}}', { number: entry.number - 1 })}</h3>
                    <p className="cons-entry-text" dir="auto">
                        {entry.text}
                    </p>
                    <p className="cons-signature" data-testid="signature">
                        {t('Signed by {{name}} on {{time}}', {
                            name: entry.authorName,
                            time: formatDateTime(entry.createdAt, language),
                        })}
                        <br />
                        <span className="cons-hash">
                            {t('SHA-256')} <code data-testid="signature-hash">{entry.contentSha256}</code>
                        </span>
                    </p>
                </article>
            ))}
            {codes.length > 0 && (
                <section className="cons-signed-codes">
                    <h3>{t('Diagnoses (ICD-10)')}</h3>
                    <CodeList codes={codes} testId="signed-codes" />
                </section>
            )}
            {!readOnly && (
                <div className="cons-addendum">
                    <TextAreaField
                        label={t('Addendum')}
                        value={text}
                        rows={4}
                        onChange={event => setText(event.target.value)}
                        data-testid="addendum-text"
                    />
                    {error && (
                        <Alert kind="error" onClose={() => setError(null)}>
                            <p>{error}</p>
                        </Alert>
                    )}
                    <Button busy={busy} onClick={() => void submit()} data-testid="addendum-add">
                        {t('Sign and add the addendum')}
                    </Button>
                </div>
            )}
        </div>
    );
};
