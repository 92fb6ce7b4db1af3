/**
 * One live consultation over `/api/live`: the socket, its state, the
 * transcript, and the audio/interruption events for playback.
 *
 * States (spec §4 "Assistant connection"): disconnected, connecting,
 * connected, reconnecting (the server is renewing its provider connection, or
 * this browser is re-opening a dropped socket), error (with the message shown
 * as 'Connection failed: {message}').
 *
 * A refusal (the server's `status` of state `error`, then a 44xx close) is
 * final. A socket that drops without one (network, server restart) is
 * re-opened after 1000 ms, at most 3 times (spec §4 "Generic live session",
 * §9), then fails with 'Max reconnection attempts reached'. A manual
 * disconnect cancels pending retries.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { sessionStore } from '@/lib/session/storage';
import {
    closeReasonText,
    liveSocketUrl,
    parseServerMessage,
    type ClientMessage,
    type ServerMessage,
    type Speaker,
} from './protocol';

export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'reconnecting' | 'error';

export interface TranscriptEntry {
    id: number;
    speaker: Speaker;
    text: string;
    /** ISO 8601 start of the line (server clock). */
    at: string;
}

export interface InterimLine {
    text: string;
    at: string;
}

export interface LiveSessionEvents {
    onAudio?: (data: string, mimeType?: string) => void;
    onInterrupted?: () => void;
    /** The first `connected` of a consultation the doctor started (not after a renewal). */
    onConnected?: () => void;
    /** The socket closed after having been connected (by the doctor or not). */
    onDisconnected?: () => void;
    /** The connection failed before it was ever connected. */
    onFailed?: () => void;
    /** The server refused the token: the session is over. */
    onUnauthorized?: () => void;
}

export const MAX_RECONNECT_ATTEMPTS = 3;
export const RECONNECT_DELAY_MS = 1000;
export const CONNECTION_CLOSED = 'Connection closed';
export const MAX_ATTEMPTS_REACHED = 'Max reconnection attempts reached';
export const NETWORK_ERROR = 'Network error - please check your connection';
// Past this much unsent data (about 10 s of audio) the network is not keeping up: audio is dropped
// rather than queued, so the assistant hears the present and not a growing backlog.
const MAX_BUFFERED_BYTES = 512 * 1024;

export const useLiveSession = (consoleKey: string, events: LiveSessionEvents) => {
    const [state, setState] = useState<ConnectionState>('disconnected');
    const [error, setError] = useState<string | null>(null);
    const [awake, setAwake] = useState(true);
    const [wakePhraseRequired, setWakePhraseRequired] = useState(false);
    const [wakeMessage, setWakeMessage] = useState<string | null>(null);
    const [demo, setDemo] = useState(false);
    const [lines, setLines] = useState<TranscriptEntry[]>([]);
    const [interim, setInterim] = useState<Partial<Record<Speaker, InterimLine>>>({});
    // Counts the consultations the doctor started here: what belongs to one (a summary) resets with it.
    const [epoch, setEpoch] = useState(0);

    const socket = useRef<WebSocket | null>(null);
    const handlers = useRef(events);
    handlers.current = events;
    const manual = useRef(false);
    const attempts = useRef(0);
    const retryTimer = useRef<number | undefined>(undefined);
    const refusal = useRef<string | null>(null);
    const announced = useRef(false); // the connect sound played for this consultation
    const nextId = useRef(1);
    const mounted = useRef(true);

    const send = useCallback((message: ClientMessage): boolean => {
        const ws = socket.current;
        if (!ws || ws.readyState !== WebSocket.OPEN) return false;
        if (message.type === 'audio' && ws.bufferedAmount > MAX_BUFFERED_BYTES) return false;
        ws.send(JSON.stringify(message));
        return true;
    }, []);

    const onMessage = useCallback((message: ServerMessage) => {
        switch (message.type) {
            case 'status':
                if (message.state === 'connected') {
                    attempts.current = 0;
                    setError(null);
                    setState('connected');
                    setAwake(message.awake ?? true);
                    setWakePhraseRequired(Boolean(message.wakePhraseRequired));
                    setDemo(Boolean(message.demo));
                    if (!announced.current) {
                        announced.current = true;
                        handlers.current.onConnected?.();
                    }
                } else if (message.state === 'reconnecting') {
                    setState('reconnecting');
                } else if (message.state === 'connecting') {
                    setState(current => (current === 'reconnecting' ? current : 'connecting'));
                } else if (message.state === 'error') {
                    refusal.current = message.message || CONNECTION_CLOSED;
                    if (message.code === 'unauthorized') handlers.current.onUnauthorized?.();
                }
                break;
            case 'wake':
                setAwake(message.awake);
                setWakeMessage(message.message);
                break;
            case 'audio':
                if (message.data) handlers.current.onAudio?.(message.data, message.mimeType);
                break;
            case 'interrupted':
                handlers.current.onInterrupted?.();
                break;
            case 'transcript': {
                const { speaker, text, at } = message;
                if (message.final) {
                    if (text.trim()) setLines(current => [...current, { id: nextId.current++, speaker, text, at }]);
                    setInterim(current => {
                        if (!(speaker in current)) return current;
                        const next = { ...current };
                        delete next[speaker];
                        return next;
                    });
                } else {
                    setInterim(current => ({ ...current, [speaker]: { text, at } }));
                }
                break;
            }
            case 'error':
                // A frame the server could not use; the consultation goes on.
                console.warn('live socket:', message.message);
                break;
            default:
                break; // turnComplete, toolResult: shown through the transcript lines
        }
    }, []);

    const open = useCallback(() => {
        const token = sessionStore.token();
        let ws: WebSocket;
        try {
            ws = new WebSocket(liveSocketUrl(consoleKey));
        } catch {
            setError(NETWORK_ERROR);
            setState('error');
            return;
        }
        socket.current = ws;
        refusal.current = null;
        ws.onopen = () => ws.send(JSON.stringify({ type: 'auth', token: token ?? '' } satisfies ClientMessage));
        ws.onmessage = (event: MessageEvent) => {
            if (socket.current !== ws) return;
            const message = parseServerMessage(event.data);
            if (message) onMessage(message);
        };
        ws.onclose = (event: CloseEvent) => {
            if (socket.current !== ws || !mounted.current) return;
            socket.current = null;
            setInterim({});
            const wasConnected = announced.current;
            if (refusal.current !== null) {
                setError(refusal.current);
                setState('error');
                if (wasConnected) handlers.current.onDisconnected?.();
                else handlers.current.onFailed?.();
                return;
            }
            // Closed by the application with a reason but no status first: the reason is final.
            const reason = closeReasonText(event.reason ?? '');
            if (event.code >= 4000 && event.code < 5000) {
                setError(reason || CONNECTION_CLOSED);
                setState('error');
                if (wasConnected) handlers.current.onDisconnected?.();
                else handlers.current.onFailed?.();
                return;
            }
            if (attempts.current < MAX_RECONNECT_ATTEMPTS) {
                attempts.current += 1;
                setState('reconnecting');
                retryTimer.current = window.setTimeout(() => {
                    retryTimer.current = undefined;
                    if (!manual.current) open();
                }, RECONNECT_DELAY_MS);
                return;
            }
            setError(MAX_ATTEMPTS_REACHED);
            setState('error');
            if (wasConnected) handlers.current.onDisconnected?.();
            else handlers.current.onFailed?.();
        };
    }, [consoleKey, onMessage]);

    const connect = useCallback(() => {
        if (socket.current || retryTimer.current !== undefined) return;
        manual.current = false;
        attempts.current = 0;
        announced.current = false;
        // A new consultation starts with an empty transcript (spec §4).
        setEpoch(current => current + 1);
        setLines([]);
        setInterim({});
        setError(null);
        setWakeMessage(null);
        setDemo(false);
        setState('connecting');
        open();
    }, [open]);

    const disconnect = useCallback(() => {
        manual.current = true;
        window.clearTimeout(retryTimer.current);
        retryTimer.current = undefined;
        const ws = socket.current;
        socket.current = null;
        if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'Disconnected by the user');
        setInterim({});
        setState('disconnected');
        if (announced.current) handlers.current.onDisconnected?.();
        announced.current = false;
    }, []);

    useEffect(() => {
        mounted.current = true;
        return () => {
            // Leaving the page ends the consultation quietly.
            mounted.current = false;
            manual.current = true;
            window.clearTimeout(retryTimer.current);
            retryTimer.current = undefined;
            socket.current?.close(1000, 'Page closed');
            socket.current = null;
        };
    }, []);

    const actions = useMemo(
        () => ({
            connect,
            disconnect,
            sendAudio: (data: string) => send({ type: 'audio', data }),
            sendAudioEnd: () => send({ type: 'audioStreamEnd' }),
            sendVideo: (data: string) => send({ type: 'video', data }),
            sendText: (text: string) => send({ type: 'text', text }),
        }),
        [connect, disconnect, send],
    );

    return { state, error, awake, wakePhraseRequired, wakeMessage, demo, lines, interim, epoch, ...actions };
};

export type LiveSession = ReturnType<typeof useLiveSession>;
