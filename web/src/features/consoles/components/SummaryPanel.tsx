/**
 * The Summary panel (spec §2, §4 "Summary / report", §8 "Summary"): a summary
 * of the consultation and a report draft with an optional focus topic, both
 * generated on the server by a worker (POST /api/summarize, 30 s at most).
 *
 * Specialty consoles disable the buttons until connected with a transcript
 * (tooltip 'Connect and record conversation first'); the generic console
 * keeps them enabled while connected and warns by toast instead (spec §5).
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/ui/Spinner';
import { NETWORK_FAILED } from '@/lib/api/messages';
import { requestSummary, SummaryError, type SummaryKind, type SummaryLine } from '../api';
import { useConsoleToast } from './ConsoleToasts';
import { revealPanel } from './TranscriptionPanel';

type RequestState =
    | { status: 'idle' }
    | { status: 'processing' }
    | { status: 'done'; text: string; label: string }
    | { status: 'error'; key: string; values: Record<string, string | number> };

const useSummaryRequest = (kind: SummaryKind, consultationId: string | null) => {
    const [state, setState] = useState<RequestState>({ status: 'idle' });
    const last = useRef<RequestState>({ status: 'idle' });
    const run = useCallback(
        async (transcript: SummaryLine[], focus?: string): Promise<boolean> => {
            setState({ status: 'processing' }); // the old text is cleared (spec §4)
            try {
                const { summary, label } = await requestSummary(transcript, kind, focus, consultationId);
                last.current = { status: 'done', text: summary, label };
                setState(last.current);
                return true;
            } catch (error) {
                const failure =
                    error instanceof SummaryError
                        ? { key: error.key, values: error.values }
                        : { key: NETWORK_FAILED, values: {} };
                setState({ status: 'error', ...failure });
                return false;
            }
        },
        [kind, consultationId],
    );
    return { state, run, setState };
};

interface SummaryPanelProps {
    id: string;
    open: boolean;
    transcript: SummaryLine[];
    connected: boolean;
    generic: boolean;
    /** The live consultation the drafts are kept on (null before the server opened one). */
    consultationId: string | null;
    onClose: () => void;
}

export const SummaryPanel = ({
    id,
    open,
    transcript,
    connected,
    generic,
    consultationId,
    onClose,
}: SummaryPanelProps) => {
    const { t } = useTranslation('consoles');
    const notify = useConsoleToast();
    const summary = useSummaryRequest('summary', consultationId);
    const report = useSummaryRequest('report', consultationId);
    const [focus, setFocus] = useState('');
    const focusId = useId();
    const hintId = useId();
    const panel = useRef<HTMLElement>(null);
    useEffect(() => {
        if (!open) return;
        const frame = window.requestAnimationFrame(() => revealPanel(panel.current));
        return () => window.cancelAnimationFrame(frame);
    }, [open]);

    const hasConversation = transcript.some(line => line.text.trim());
    // Specialty consoles: usable once connected with a conversation. Generic: once connected.
    const enabled = connected && (generic || hasConversation);

    const generate = async (kind: SummaryKind) => {
        const request = kind === 'summary' ? summary : report;
        if (!connected) {
            if (generic) {
                console.warn('summary request ignored: not connected');
                return;
            }
            request.setState({ status: 'error', key: 'Please connect before generating a summary.', values: {} });
            return;
        }
        if (!hasConversation) {
            if (generic) {
                notify(
                    kind === 'summary'
                        ? t('No conversation yet to summarize.')
                        : t('No conversation yet to draft a report from.'),
                    'warning',
                );
                return;
            }
            request.setState({ status: 'error', key: 'No conversation recorded yet.', values: {} });
            return;
        }
        notify(kind === 'summary' ? t('Summary request sent.') : t('Report draft request sent.'), 'info');
        const ok = await request.run(transcript, kind === 'report' ? focus : undefined);
        if (!ok) {
            notify(
                kind === 'summary' ? t('Failed to send summary request.') : t('Failed to send report draft request.'),
                'error',
            );
        }
    };

    const onReport = (event: FormEvent) => {
        event.preventDefault();
        void generate('report');
    };

    const busy = summary.state.status === 'processing' || report.state.status === 'processing';
    const disabledHint = enabled ? undefined : t('Connect and record conversation first');

    return (
        <aside
            ref={panel}
            id={id}
            className="console-panel summary-panel"
            hidden={!open}
            aria-labelledby={`${id}-title`}
            data-testid="summary-panel"
        >
            <header className="console-panel-header">
                <h2 id={`${id}-title`}>{t('Summary')}</h2>
                <button type="button" className="console-panel-close" aria-label={t('Close')} onClick={onClose}>
                    ×
                </button>
            </header>

            <section
                className="summary-section"
                aria-labelledby={`${id}-summary`}
                aria-busy={summary.state.status === 'processing'}
            >
                <h3 id={`${id}-summary`} className="visually-hidden">
                    {t('Summary')}
                </h3>
                <span className="summary-action" title={disabledHint}>
                    <button
                        type="button"
                        className="btn btn-primary"
                        disabled={!enabled || busy}
                        aria-describedby={enabled ? undefined : hintId}
                        onClick={() => void generate('summary')}
                    >
                        {summary.state.status === 'done' ? t('Generate New Summary') : t('Generate Summary')}
                    </button>
                </span>
                {!enabled && (
                    <p id={hintId} className="console-hint">
                        {t('Connect and record conversation first')}
                    </p>
                )}
                <SummaryResult
                    state={summary.state}
                    empty={t('No summary generated yet.')}
                    loading={t('Generating summary...')}
                    testId="summary-result"
                />
            </section>

            <form
                className="summary-section"
                onSubmit={onReport}
                aria-labelledby={`${id}-report`}
                aria-busy={report.state.status === 'processing'}
            >
                <h3 id={`${id}-report`}>{t('Report draft')}</h3>
                <div className="field">
                    <label htmlFor={focusId}>{t('Focus topic (optional)')}</label>
                    <input
                        id={focusId}
                        value={focus}
                        maxLength={200}
                        placeholder={t('e.g. follow-up plan')}
                        onChange={event => setFocus(event.target.value)}
                    />
                </div>
                <span className="summary-action" title={disabledHint}>
                    <button
                        type="submit"
                        className="btn btn-secondary"
                        disabled={!enabled || busy}
                        aria-describedby={enabled ? undefined : hintId}
                    >
                        {report.state.status === 'done' ? t('Generate New Report Draft') : t('Generate Report Draft')}
                    </button>
                </span>
                <SummaryResult
                    state={report.state}
                    empty={t('No report draft generated yet.')}
                    loading={t('Generating report draft...')}
                    testId="report-result"
                />
            </form>
        </aside>
    );
};

const SummaryResult = ({
    state,
    empty,
    loading,
    testId,
}: {
    state: RequestState;
    empty: string;
    loading: string;
    testId: string;
}) => {
    const { t } = useTranslation('consoles');
    return (
        <div className="summary-result" data-testid={testId} data-status={state.status} aria-live="polite">
            {state.status === 'idle' && <p className="console-empty">{empty}</p>}
            {state.status === 'processing' && (
                <p className="console-loading">
                    <Spinner label={loading} />
                    <span aria-hidden="true">{loading}</span>
                </p>
            )}
            {state.status === 'error' && (
                <p className="console-error" role="alert">
                    {/* A server message is translated when it is one of ours, else shown as sent. */}
                    {t(state.key, {
                        ...state.values,
                        message: state.values.message !== undefined ? t(String(state.values.message)) : undefined,
                    })}
                </p>
            )}
            {state.status === 'done' && (
                <article className="summary-text">
                    {state.label && <p className="summary-label">{t(state.label)}</p>}
                    {state.text.split(/\n{2,}/).map((paragraph, i) => (
                        <p key={i}>{paragraph}</p>
                    ))}
                </article>
            )}
        </div>
    );
};
