/**
 * The Transcription panel (spec §2): each line with its time and speaker,
 * the empty text, and an automatic close 5 seconds after opening, restarted
 * by mouse movement over the panel. Keyboard and screen-reader users are not
 * timed out: focus inside the panel, a key press or scrolling count as
 * movement too, and the panel never closes while it holds the focus.
 * The close follows the mouse, so it applies where a mouse is the pointer
 * (a hovering, fine pointer): on a touch screen, where no movement could keep
 * it open, the panel stays until the doctor closes it. Opened below the fold
 * (a phone, a narrow window), it is scrolled into view.
 */
import { useCallback, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

import type { InterimLine, TranscriptEntry } from '../live/liveSocket';
import type { Speaker } from '../live/protocol';
import { formatTime, withInterim } from './transcript';

export const TRANSCRIPTION_AUTO_CLOSE_MS = 5000;

/** A mouse (or another hovering, fine pointer) is the page's main pointer. */
const mousePointer = () => window.matchMedia?.('(hover: hover) and (pointer: fine)').matches ?? true;

/** Scrolls an opened panel into view when its title is off screen. */
export const revealPanel = (element: HTMLElement | null) => {
    if (!element || element.hidden) return;
    const box = element.getBoundingClientRect();
    if (box.top < 0 || box.top + 48 > window.innerHeight) element.scrollIntoView({ block: 'start' });
};

export const useSpeakerLabel = () => {
    const { t } = useTranslation('consoles');
    return (speaker: Speaker) =>
        speaker === 'user' ? t('You') : speaker === 'assistant' ? t('Cara') : t('Dose-constraint check');
};

interface TranscriptionPanelProps {
    id: string;
    open: boolean;
    lines: TranscriptEntry[];
    interim: Partial<Record<Speaker, InterimLine>>;
    onClose: () => void;
}

export const TranscriptionPanel = ({ id, open, lines, interim, onClose }: TranscriptionPanelProps) => {
    const { t, i18n } = useTranslation('consoles');
    const label = useSpeakerLabel();
    const panel = useRef<HTMLElement>(null);
    const list = useRef<HTMLOListElement>(null);
    const timer = useRef<number | undefined>(undefined);
    const close = useRef(onClose);
    close.current = onClose;

    const restart = useCallback(() => {
        window.clearTimeout(timer.current);
        if (!panel.current || panel.current.hidden || !mousePointer()) return;
        timer.current = window.setTimeout(function expire() {
            if (panel.current?.contains(document.activeElement)) {
                timer.current = window.setTimeout(expire, TRANSCRIPTION_AUTO_CLOSE_MS);
                return;
            }
            close.current();
        }, TRANSCRIPTION_AUTO_CLOSE_MS);
    }, []);

    useEffect(() => {
        if (!open) return;
        // After the frame that lays the opened panel out (a slow phone may not have yet).
        const frame = window.requestAnimationFrame(() => revealPanel(panel.current));
        restart();
        return () => {
            window.cancelAnimationFrame(frame);
            window.clearTimeout(timer.current);
        };
    }, [open, restart]);

    const entries = withInterim(lines, interim);
    useEffect(() => {
        // Follow the conversation: the newest line stays in view.
        const element = list.current;
        if (element) element.scrollTop = element.scrollHeight;
    }, [open, entries.length, entries[entries.length - 1]?.text]);

    return (
        <aside
            ref={panel}
            id={id}
            className="console-panel transcription-panel"
            hidden={!open}
            aria-labelledby={`${id}-title`}
            data-testid="transcription-panel"
            onMouseMove={restart}
            onFocus={restart}
            onKeyDown={restart}
            onWheel={restart}
        >
            <header className="console-panel-header">
                <h2 id={`${id}-title`}>{t('Transcription')}</h2>
                <button type="button" className="console-panel-close" aria-label={t('Close')} onClick={onClose}>
                    ×
                </button>
            </header>
            {entries.length === 0 ? (
                <p className="console-empty">{t('No transcriptions yet. Start speaking to see transcriptions here.')}</p>
            ) : (
                <ol ref={list} className="transcript-list" tabIndex={0} aria-label={t('Transcription')}>
                    {entries.map(entry => (
                        <li
                            key={entry.id}
                            className={`transcript-line speaker-${entry.speaker}${entry.interim ? ' is-interim' : ''}`}
                            data-speaker={entry.speaker}
                            data-final={!entry.interim}
                        >
                            <time dateTime={entry.at}>{formatTime(entry.at, i18n.language)}</time>
                            <span className="transcript-speaker">{label(entry.speaker)}</span>
                            <p className="transcript-text">{entry.text}</p>
                        </li>
                    ))}
                </ol>
            )}
        </aside>
    );
};
