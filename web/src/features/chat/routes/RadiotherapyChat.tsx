/**
 * /radiotherapist-chat (spec §2): a text conversation with the radiotherapy
 * assistant. The instructions and the search tool live on the server, which
 * keeps the history per chat; the page keeps the chat id and shows the
 * conversation the server returns. Send is disabled while empty or waiting,
 * Enter sends (Shift+Enter is a new line), 'Thinking...' shows while
 * waiting, and the list follows the newest message.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Spinner } from '@/components/ui/Spinner';
import { NETWORK_FAILED } from '@/lib/api/messages';
import { sendChatMessage, ChatError, type ChatTurn } from '../api';

import '../chat.css';

interface Message extends ChatTurn {
    id: number;
}

const RadiotherapyChat = () => {
    const { t } = useTranslation('chat');
    const [messages, setMessages] = useState<Message[]>([]);
    const [draft, setDraft] = useState('');
    const [waiting, setWaiting] = useState(false);
    const [error, setError] = useState<string | null>(null);
    const chatId = useRef<string | null>(null);
    const nextId = useRef(1);
    const list = useRef<HTMLDivElement>(null);
    const input = useRef<HTMLTextAreaElement>(null);
    const inputId = useId();

    useEffect(() => {
        const element = list.current;
        if (element) element.scrollTop = element.scrollHeight;
    }, [messages.length, waiting]);

    const number = (turns: ChatTurn[]): Message[] => turns.map(turn => ({ ...turn, id: nextId.current++ }));

    const send = async () => {
        const text = draft.trim();
        if (!text || waiting) return;
        setError(null);
        setWaiting(true);
        setDraft('');
        // Shown at once; replaced by the server's copy of the conversation when it answers.
        setMessages(current => [...current, ...number([{ role: 'user', text }])]);
        try {
            const reply = await sendChatMessage(text, chatId.current);
            chatId.current = reply.chatId;
            const history = reply.messages.length
                ? reply.messages
                : [{ role: 'user' as const, text }, { role: 'assistant' as const, text: reply.reply }];
            setMessages(number(history));
        } catch (failure) {
            setMessages(current => current.slice(0, -1));
            setDraft(text); // nothing typed is lost
            setError(failure instanceof ChatError ? failure.message : NETWORK_FAILED);
        } finally {
            setWaiting(false);
            input.current?.focus();
        }
    };

    const onSubmit = (event: FormEvent) => {
        event.preventDefault();
        void send();
    };
    const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void send();
        }
    };
    const newChat = () => {
        chatId.current = null;
        setMessages([]);
        setError(null);
        input.current?.focus();
    };

    return (
        <main className="page chat-page" data-testid="radiotherapy-chat">
            <header className="chat-header">
                <h1>{t('Radiotherapy Chat Assistant')}</h1>
                <button
                    type="button"
                    className="btn btn-secondary"
                    onClick={newChat}
                    disabled={waiting || !messages.length}
                >
                    {t('New chat')}
                </button>
            </header>
            <p className="chat-intro">
                {t('Ask about plan review against normal-tissue constraints, DVH analysis, plan comparison and adaptation.')}
            </p>
            <section className="chat-window" aria-label={t('Conversation')}>
                {messages.length === 0 && !waiting ? (
                    <p className="chat-empty">{t('No messages yet. Type your question below.')}</p>
                ) : (
                    <div
                        ref={list}
                        className="chat-messages"
                        role="log"
                        aria-live="polite"
                        tabIndex={0}
                        aria-label={t('Messages')}
                    >
                        <ol>
                            {messages.map(message => (
                                <li
                                    key={message.id}
                                    className={`chat-message chat-${message.role}`}
                                    data-sender={message.role}
                                >
                                    <span className="chat-sender">
                                        {message.role === 'user'
                                            ? t('User')
                                            : message.role === 'tool'
                                              ? t('Dose-constraint check')
                                              : t('Assistant')}
                                    </span>
                                    <p className="chat-text">{message.text}</p>
                                </li>
                            ))}
                            {waiting && (
                                <li className="chat-message chat-assistant chat-thinking" data-testid="chat-thinking">
                                    <span className="chat-sender">{t('Assistant')}</span>
                                    <p className="chat-text">
                                        <Spinner label={t('Thinking...')} />
                                        <span aria-hidden="true">{t('Thinking...')}</span>
                                    </p>
                                </li>
                            )}
                        </ol>
                    </div>
                )}
            </section>
            {error && (
                <Alert kind="error" onClose={() => setError(null)}>
                    <p data-testid="chat-error">{t(error)}</p>
                </Alert>
            )}
            <form className="chat-form" onSubmit={onSubmit}>
                <label htmlFor={inputId} className="visually-hidden">
                    {t('Your question')}
                </label>
                <textarea
                    ref={input}
                    id={inputId}
                    className="form-control"
                    rows={2}
                    value={draft}
                    maxLength={8000}
                    placeholder={t('Type your question...')}
                    onChange={event => setDraft(event.target.value)}
                    onKeyDown={onKeyDown}
                />
                <button type="submit" className="btn btn-primary" disabled={!draft.trim() || waiting}>
                    {t('Send')}
                </button>
            </form>
        </main>
    );
};

export default RadiotherapyChat;
