import { useTranslation } from 'react-i18next';

import type { TranscriptLine } from '../api';
import { formatClock } from '../format';

/**
 * The consultation's transcript as stored on the server: clock time, who
 * spoke (the doctor, Cara, the dose-constraint check, or the patient in a
 * consultation recorded offline), the words. Lines
 * named by the selected evidence are highlighted.
 */
export const TranscriptView = ({
    lines,
    highlighted,
}: {
    lines: readonly TranscriptLine[];
    highlighted: ReadonlySet<number>;
}) => {
    const { t, i18n } = useTranslation('consultations');
    const language = i18n.resolvedLanguage ?? 'en';
    const speaker = (value: string) =>
        value === 'user'
            ? t('Doctor')
            : value === 'assistant'
              ? 'Cara'
              : value === 'tool'
                ? t('Dose-constraint check')
                : value === 'patient'
                  ? t('Patient')
                  : value;

    if (!lines.length) return <p className="cons-muted">{t('No transcript lines were stored.')}</p>;
    return (
        <ol className="cons-transcript" data-testid="transcript">
            {lines.map(line => (
                <li
                    key={line.id}
                    id={`line-${line.id}`}
                    className={`cons-line cons-line-${line.speaker}${highlighted.has(line.id) ? ' is-highlighted' : ''}`}
                    data-testid="transcript-line"
                    data-speaker={line.speaker}
                    data-highlighted={highlighted.has(line.id) || undefined}
                >
                    <time className="cons-line-time" dateTime={line.spokenAt}>
                        {formatClock(line.spokenAt, language)}
                    </time>
                    <span className="cons-line-speaker">{speaker(line.speaker)}</span>
                    <span className="cons-line-text" dir="auto">
                        {line.text}
                    </span>
                </li>
            ))}
        </ol>
    );
};
