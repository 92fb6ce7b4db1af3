import { useTranslation } from 'react-i18next';

import type { DiagnosisCode } from '../api';

/**
 * ICD-10 codes, each with the button that shows the transcript lines it rests on; with
 * `accepted`, each has a checkbox the doctor ticks to accept it (unticked codes are not kept).
 */
export const CodeList = ({
    codes,
    accepted,
    onToggle,
    onShowEvidence,
    testId,
}: {
    codes: readonly DiagnosisCode[];
    accepted?: ReadonlySet<string>;
    onToggle?: (code: string) => void;
    onShowEvidence?: (lineIds: readonly number[]) => void;
    testId: string;
}) => {
    const { t } = useTranslation('consultations');
    return (
        <ul className="cons-codes" data-testid={testId}>
            {codes.map(code => {
                const lines = code.lineIds ?? [];
                return (
                    <li key={code.code} data-code={code.code}>
                        {accepted && onToggle ? (
                            <label className="cons-code-choice">
                                <input
                                    type="checkbox"
                                    checked={accepted.has(code.code)}
                                    onChange={() => onToggle(code.code)}
                                    data-testid="accept-code"
                                />
                                <span>
                                    <strong dir="ltr">{code.code}</strong> {code.title}
                                </span>
                            </label>
                        ) : (
                            <span>
                                <strong dir="ltr">{code.code}</strong> {code.title}
                            </span>
                        )}
                        {lines.length > 0 && onShowEvidence && (
                            <button
                                type="button"
                                className="cons-code-evidence"
                                title={t('Show the transcript lines this code rests on')}
                                onClick={() => onShowEvidence(lines)}
                            >
                                {t('{{count}} lines', { count: lines.length })}
                            </button>
                        )}
                    </li>
                );
            })}
        </ul>
    );
};
