/**
 * The Voice Assistant panel (spec §2): its own microphone button, the turns
 * of the clinician and of Cara, and (beyond the spec, for clinicians who
 * cannot speak at that moment) a typed question, sent on the same socket.
 * A dose-constraint check the assistant ran (the radiotherapy console) shows
 * among the turns where it happened, so its result is read beside Cara's answer.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { MicIcon, SendIcon } from '@/components/ui/icons';
import type { Level } from '../audio/level';
import type { InterimLine, TranscriptEntry } from '../live/liveSocket';
import type { Speaker } from '../live/protocol';
import { useLevelVariable } from './LevelMeter';
import { withInterim } from './transcript';
import { useSpeakerLabel } from './TranscriptionPanel';

interface VoiceAssistantPanelProps {
    lines: TranscriptEntry[];
    interim: Partial<Record<Speaker, InterimLine>>;
    listening: boolean;
    connected: boolean;
    inputLevel: Level;
    onMicrophone: () => void;
    onAsk: (text: string) => boolean;
}

export const VoiceAssistantPanel = (props: VoiceAssistantPanelProps) => {
    const { t } = useTranslation('consoles');
    const label = useSpeakerLabel();
    const [question, setQuestion] = useState('');
    const list = useRef<HTMLOListElement>(null);
    const micRing = useLevelVariable<HTMLButtonElement>(props.inputLevel);
    const inputId = useId();
    const turns = withInterim(props.lines, { user: props.interim.user, assistant: props.interim.assistant });

    useEffect(() => {
        const element = list.current;
        if (element) element.scrollTop = element.scrollHeight;
    }, [turns.length, turns[turns.length - 1]?.text]);

    const ask = (event: FormEvent) => {
        event.preventDefault();
        const text = question.trim();
        if (text && props.onAsk(text)) setQuestion('');
    };

    return (
        <section className="voice-panel" aria-labelledby="voice-panel-title" data-testid="voice-panel">
            <header className="voice-panel-header">
                <h2 id="voice-panel-title">{t('Voice Assistant')}</h2>
                <button
                    ref={micRing}
                    type="button"
                    className={`voice-mic${props.listening ? ' is-listening' : ''}`}
                    aria-pressed={props.listening}
                    aria-label={t('Microphone')}
                    title={props.listening ? t('Stop listening') : t('Start speaking')}
                    onClick={props.onMicrophone}
                >
                    <MicIcon off={!props.listening} size={22} />
                </button>
            </header>
            {turns.length === 0 ? (
                <p className="console-empty">{t('No transcriptions yet. Click the microphone to start speaking.')}</p>
            ) : (
                <ol ref={list} className="voice-turns" tabIndex={0} aria-label={t('Conversation')}>
                    {turns.map(turn => (
                        <li
                            key={turn.id}
                            className={`voice-turn turn-${turn.speaker}${turn.interim ? ' is-interim' : ''}`}
                            data-speaker={turn.speaker}
                        >
                            <span className="voice-turn-speaker">{label(turn.speaker)}</span>
                            <p>{turn.text}</p>
                        </li>
                    ))}
                </ol>
            )}
            <form className="voice-ask" onSubmit={ask}>
                <label htmlFor={inputId} className="visually-hidden">
                    {t('Type a question for Cara')}
                </label>
                <input
                    id={inputId}
                    value={question}
                    maxLength={4000}
                    placeholder={t('Type a question for Cara')}
                    disabled={!props.connected}
                    onChange={event => setQuestion(event.target.value)}
                />
                <button
                    type="submit"
                    className="voice-ask-send"
                    aria-label={t('Send question')}
                    title={t('Send question')}
                    disabled={!props.connected || !question.trim()}
                >
                    <SendIcon size={22} />
                </button>
            </form>
        </section>
    );
};
