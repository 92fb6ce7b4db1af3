/**
 * One live consultation over `/api/live`: the socket, its state, the
 * transcript, and the audio/interruption events for playback.
 *
 * States (spec §4 "Assistant connection"): disconnected, connecting,
 * connected, reconnecting (the server is renewing its provider connection, or
 * this browser is re-opening a dropped socket), error (with the message shown
 * as 'Connection failed: {message}').
 *
 * Rejoin, never restart: the consultation has an id (handed in by the console
 * when the doctor starts one, or given by the server's `connected`), sent in
 * the first frame of every socket, so a reconnection continues the same
 * consultation. A socket that drops without a refusal (network, sleep, server
 * restart) is re-opened with backoff and jitter for as long as the page is
 * open (rejoin.ts; close code 1012, a draining replica, retries at once; the
 * browser's `online` event retries now). Nothing on screen is cleared: the
 * lines, the wake state and the summary stay, and they are kept in the tab's
 * sessionStorage so a reload rejoins the same consultation with its lines.
 * Microphone audio captured while the socket is down waits (up to 30 s, the
 * oldest dropped first and counted) and is sent on rejoin.
 *
 * A refusal (the server's `status` of state `error`, then a 44xx close) is
 * final. Disconnecting ends the consultation: the stored id is forgotten and
 * the next Connect starts a new one.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { freshToken } from '@/lib/session/storage';
import {
    closeReasonText,
    liveSocketUrl,
    parseServerMessage,
    type ClientMessage,
    type ServerMessage,
    type Speaker,
} from './protocol';
import { consultationStore, OfflineBuffer, reconnectDelay, type StoredLine } from './rejoin';

export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'reconnecting' | 'error';

export interface TranscriptEntry {
    id: number;
    speaker: Speaker;
    text: string;
    /** ISO 8601 start of the line (server clock). */
    at: string;
    /** The server's line number in the consultation (final lines). */
    seq?: number;
}

export interface InterimLine {
    text: string;
    at: string;
}

export interface LiveSessionEvents {
    onAudio?: (data: string, mimeType?: string) => void;
    /** One Opus packet of Cara's speech (a binary frame, when the socket carries Opus). */
    onAudioPacket?: (packet: ArrayBuffer) => void;
    onInterrupted?: () => void;
    /** The assistant finished its turn. */
    onTurnComplete?: () => void;
    /** The first `connected` of a consultation the doctor started (not after a renewal or a rejoin). */
    onConnected?: () => void;
    /** The consultation ended after having been connected (by the doctor or a refusal). */
    onDisconnected?: () => void;
    /** The connection failed before it was ever connected. */
    onFailed?: () => void;
    /** The server refused the token: the session is over. */
    onUnauthorized?: () => void;
    /** The socket dropped and will be re-opened (playback of the old turn should stop). */
    onDropped?: () => void;
}

export const CONNECTION_CLOSED = 'Connection closed';
export const MAX_ATTEMPTS_REACHED = 'Max reconnection attempts reached';
export const NETWORK_ERROR = 'Network error - please check your connection';
// Past this much unsent data the network is not keeping up: audio waits in the offline buffer
// (bounded, oldest dropped first) instead of piling up in the socket.
const MAX_BUFFERED_BYTES = 64 * 1024;
/** The server pings every second: this long without hearing anything, the link is weak. */
export const WEAK_AFTER_MS = 3000;
/** This long without hearing anything, the socket is given up and re-opened. */
export const DEAD_AFTER_MS = 10_000;
const WATCH_INTERVAL_MS = 500;

/** A microphone frame: base64 PCM (JSON) or an Opus packet (binary). */
type AudioFrame = string | Uint8Array;

const sendFrame = (ws: WebSocket, frame: AudioFrame) => {
    if (typeof frame === 'string') ws.send(JSON.stringify({ type: 'audio', data: frame } satisfies ClientMessage));
    else ws.send(frame);
};

const toEntry = (line: StoredLine, id: number): TranscriptEntry => ({ id, ...line });

/** `opus`: this browser encodes and decodes Opus (WebCodecs); asked for in the first frame. */
export const useLiveSession = (consoleKey: string, events: LiveSessionEvents, options: { opus?: boolean } = {}) => {
    const wantOpus = useRef(Boolean(options.opus));
    wantOpus.current = Boolean(options.opus);
    // What the server agreed to on this socket ('pcm' until it says otherwise).
    const [audioMode, setAudioMode] = useState<'opus' | 'pcm'>('pcm');
    const audioModeRef = useRef<'opus' | 'pcm'>('pcm');
    const store = useMemo(() => consultationStore(consoleKey), [consoleKey]);
    // What a reload of this tab left: the consultation to rejoin and its lines.
    const [restored] = useState(() => store.load());

    const [state, setState] = useState<ConnectionState>('disconnected');
    const [error, setError] = useState<string | null>(null);
    const [awake, setAwake] = useState(restored?.awake ?? true);
    const [wakePhraseRequired, setWakePhraseRequired] = useState(false);
    const [wakeMessage, setWakeMessage] = useState<string | null>(null);
    const [demo, setDemo] = useState(false);
    const [lines, setLines] = useState<TranscriptEntry[]>(() =>
        (restored?.lines ?? []).map((line, index) => toEntry(line, index + 1)),
    );
    const [interim, setInterim] = useState<Partial<Record<Speaker, InterimLine>>>({});
    const [consultationId, setConsultationId] = useState<string | null>(restored?.consultationId ?? null);
    // When the next retry of a dropped socket is due (ms since the epoch), for the 'Reconnecting' line.
    const [retryAt, setRetryAt] = useState<number | null>(null);
    // Seconds of microphone audio waiting for the socket, and dropped because the wait was too long.
    const [offlineAudio, setOfflineAudio] = useState({ waitingMs: 0, droppedMs: 0 });
    // Counts the consultations the doctor started here: what belongs to one (a summary) resets with it.
    const [epoch, setEpoch] = useState(0);
    // Nothing heard for 3 s (the server pings every second), or the socket's backlog is not draining.
    const [weak, setWeak] = useState(false);

    const socket = useRef<WebSocket | null>(null);
    const handlers = useRef(events);
    handlers.current = events;
    const manual = useRef(false);
    const attempts = useRef(0);
    const retryTimer = useRef<number | undefined>(undefined);
    const refusal = useRef<{ message: string; code?: string } | null>(null);
    const announced = useRef(false); // the connect sound played for this consultation
    const ready = useRef(false); // the server said `connected` on the current socket
    const consultation = useRef<string | null>(restored?.consultationId ?? null);
    const nextId = useRef((restored?.lines.length ?? 0) + 1);
    const mounted = useRef(true);
    const lastHeard = useRef(0);
    const heartbeat = useRef(false); // the server pings on this socket
    const backlogSince = useRef<number | null>(null);
    const offline = useRef(new OfflineBuffer<AudioFrame>());
    const linesRef = useRef(lines);
    linesRef.current = lines;
    const interimRef = useRef(interim);
    interimRef.current = interim;

    const showOffline = useCallback(() => {
        const buffer = offline.current;
        setOfflineAudio(current =>
            current.waitingMs === buffer.durationMs && current.droppedMs === buffer.droppedMs
                ? current
                : { waitingMs: buffer.durationMs, droppedMs: buffer.droppedMs },
        );
    }, []);

    const writable = (ws: WebSocket | null): ws is WebSocket => !!ws && ws.readyState === WebSocket.OPEN && ready.current;

    /** Sends what waited while the link was down, oldest first, as far as the socket keeps up. */
    const flushOffline = useCallback((): boolean => {
        const ws = socket.current;
        const buffer = offline.current;
        if (!buffer.size) return true;
        if (!writable(ws) || ws.bufferedAmount > MAX_BUFFERED_BYTES) return false;
        for (const frame of buffer.drain()) sendFrame(ws, frame);
        showOffline();
        return true;
    }, [showOffline]);

    const send = useCallback((message: ClientMessage): boolean => {
        const ws = socket.current;
        if (!writable(ws)) return false;
        ws.send(JSON.stringify(message));
        return true;
    }, []);

    /** A microphone chunk of `ms` milliseconds: sent now, or kept (bounded) until the socket is back. */
    const sendAudio = useCallback(
        (data: AudioFrame, ms: number): boolean => {
            const ws = socket.current;
            if (flushOffline() && writable(ws) && ws.bufferedAmount <= MAX_BUFFERED_BYTES) {
                sendFrame(ws, data);
                return true;
            }
            if (manual.current || !consultation.current) return false;
            offline.current.push(data, ms);
            showOffline();
            return false;
        },
        [flushOffline, showOffline],
    );

    const addFinal = useCallback((line: StoredLine) => {
        setLines(current => {
            if (line.seq !== undefined && current.some(entry => entry.seq === line.seq)) return current; // replayed
            // A line this page finished itself when the socket dropped: the server's copy replaces it.
            const local = current.findIndex(
                entry => entry.seq === undefined && entry.speaker === line.speaker && entry.at === line.at,
            );
            if (local >= 0) {
                const next = [...current];
                next[local] = { ...next[local], ...line };
                return next;
            }
            return [...current, toEntry(line, nextId.current++)];
        });
    }, []);

    const onMessage = useCallback(
        (message: ServerMessage) => {
            switch (message.type) {
                case 'status':
                    if (message.state === 'connected') {
                        attempts.current = 0;
                        ready.current = true;
                        setError(null);
                        setRetryAt(null);
                        setState('connected');
                        setAwake(message.awake ?? true);
                        setWakePhraseRequired(Boolean(message.wakePhraseRequired));
                        setDemo(Boolean(message.demo));
                        audioModeRef.current = message.audio === 'opus' ? 'opus' : 'pcm';
                        setAudioMode(audioModeRef.current);
                        // The server names the consultation; it is kept for rejoining once the server takes
                        // ids in the first frame (`rejoin` in `connected`).
                        if (message.consultationId && (consultation.current || message.rejoin)) {
                            consultation.current = message.consultationId;
                            setConsultationId(message.consultationId);
                        }
                        if (!announced.current) {
                            announced.current = true;
                            handlers.current.onConnected?.();
                        }
                        flushOffline();
                    } else if (message.state === 'reconnecting') {
                        setState('reconnecting');
                    } else if (message.state === 'connecting') {
                        setState(current => (current === 'reconnecting' ? current : 'connecting'));
                    } else if (message.state === 'error') {
                        refusal.current = { message: message.message || CONNECTION_CLOSED, code: message.code };
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
                case 'turnComplete':
                    handlers.current.onTurnComplete?.();
                    break;
                case 'transcript': {
                    const { speaker, text, at, seq } = message;
                    if (message.final) {
                        if (text.trim()) addFinal({ speaker, text, at, seq });
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
                    break; // toolResult: shown through the transcript lines
            }
        },
        [addFinal, flushOffline],
    );

    /** The consultation is over on this page (refused, or ended by the doctor). */
    const finish = useCallback(
        (message: string | null) => {
            window.clearTimeout(retryTimer.current);
            retryTimer.current = undefined;
            setRetryAt(null);
            offline.current.clear();
            showOffline();
            const wasConnected = announced.current;
            announced.current = false;
            if (message === null) {
                setState('disconnected');
                if (wasConnected) handlers.current.onDisconnected?.();
            } else {
                setError(message);
                setState('error');
                if (wasConnected) handlers.current.onDisconnected?.();
                else handlers.current.onFailed?.();
            }
        },
        [showOffline],
    );

    // The socket opener, for the retry timer of `dropped` (defined before `open`, which calls it).
    const openRef = useRef<() => void>(() => undefined);

    /** The socket is gone without a refusal: keep everything and open another one after a while. */
    const dropped = useCallback(
        (code: number) => {
            // What was being said stays on screen as a line; the server keeps its own copy.
            const unfinished = interimRef.current;
            for (const speaker of ['user', 'assistant'] as const) {
                const line = unfinished[speaker];
                if (line?.text.trim()) addFinal({ speaker, text: line.text, at: line.at });
            }
            setInterim({});
            handlers.current.onDropped?.();
            attempts.current += 1;
            const delay = reconnectDelay(attempts.current, code);
            setWeak(false);
            backlogSince.current = null;
            setState('reconnecting');
            setRetryAt(Date.now() + delay);
            retryTimer.current = window.setTimeout(() => {
                retryTimer.current = undefined;
                if (!manual.current && mounted.current) openRef.current();
            }, delay);
        },
        [addFinal],
    );

    const open = useCallback(() => {
        window.clearTimeout(retryTimer.current);
        retryTimer.current = undefined;
        setRetryAt(null);
        let ws: WebSocket;
        try {
            ws = new WebSocket(liveSocketUrl(consoleKey));
        } catch {
            finish(NETWORK_ERROR);
            return;
        }
        ws.binaryType = 'arraybuffer';
        socket.current = ws;
        ready.current = false;
        refusal.current = null;
        heartbeat.current = false;
        lastHeard.current = Date.now();
        ws.onopen = () => {
            // The access token lives minutes: renewed first when it is about to end.
            void freshToken().then(token => {
                if (socket.current !== ws || ws.readyState !== WebSocket.OPEN) return;
                const auth: ClientMessage = { type: 'auth', token: token ?? '' };
                if (consultation.current) auth.consultationId = consultation.current;
                if (wantOpus.current) auth.audio = 'opus';
                ws.send(JSON.stringify(auth));
            });
        };
        ws.onmessage = (event: MessageEvent) => {
            if (socket.current !== ws) return;
            lastHeard.current = Date.now();
            if (event.data instanceof ArrayBuffer) {
                handlers.current.onAudioPacket?.(event.data);
                return;
            }
            const message = parseServerMessage(event.data);
            if (message?.type === 'ping') {
                heartbeat.current = true;
                ws.send(JSON.stringify({ type: 'pong', at: message.at } satisfies ClientMessage));
            } else if (message) onMessage(message);
        };
        ws.onclose = (event: CloseEvent) => {
            if (socket.current !== ws || !mounted.current) return;
            socket.current = null;
            ready.current = false;
            const refused = refusal.current;
            if (refused !== null) {
                // A consultation the server will not continue (signed, not this doctor's): forget it.
                if (refused.code === 'not_found') store.clear();
                setInterim({});
                finish(refused.message);
                return;
            }
            // Closed by the application with a reason but no status first: the reason is final.
            if (event.code >= 4000 && event.code < 5000) {
                setInterim({});
                finish(closeReasonText(event.reason ?? '') || CONNECTION_CLOSED);
                return;
            }
            dropped(event.code);
        };
    }, [consoleKey, onMessage, finish, store, dropped]);
    openRef.current = open;

    /**
     * Starts a consultation: `id` is the one the console opened (after the patient's consent); without it
     * the server opens one and says which in `connected`.
     */
    const connect = useCallback(
        (id?: string) => {
            if (socket.current || retryTimer.current !== undefined) return;
            manual.current = false;
            attempts.current = 0;
            announced.current = false;
            consultation.current = id ?? null;
            setConsultationId(id ?? null);
            offline.current.clear();
            showOffline();
            // A new consultation starts with an empty transcript (spec §4).
            setEpoch(current => current + 1);
            setLines([]);
            setInterim({});
            setError(null);
            setWakeMessage(null);
            setDemo(false);
            setState('connecting');
            open();
        },
        [open, showOffline],
    );

    /** Rejoins the stored consultation (after a reload): its lines are already on screen. */
    const rejoin = useCallback(() => {
        if (socket.current || retryTimer.current !== undefined || !consultation.current) return;
        manual.current = false;
        attempts.current = 0;
        announced.current = true; // the consultation was announced before the reload
        setError(null);
        setState('reconnecting');
        open();
    }, [open]);

    /** Skips the wait before the next retry. */
    const retryNow = useCallback(() => {
        if (retryTimer.current === undefined || manual.current) return;
        open();
    }, [open]);

    const disconnect = useCallback(() => {
        manual.current = true;
        const ws = socket.current;
        socket.current = null;
        ready.current = false;
        if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'Disconnected by the user');
        setInterim({});
        // The consultation ends here: the next Connect starts another one.
        consultation.current = null;
        setConsultationId(null);
        store.clear();
        finish(null);
    }, [finish, store]);

    // Watches the link: silent for 3 s (while the server pings) or a backlog that does not drain is a weak
    // connection; silent for 10 s, the socket is given up and another one opened.
    useEffect(() => {
        const timer = window.setInterval(() => {
            const ws = socket.current;
            if (!ws || ws.readyState !== WebSocket.OPEN) return;
            const now = Date.now();
            // Once the session is up the server pings every second, so silence counts from then on,
            // even if the link stalled before this socket's first ping arrived.
            const silent = heartbeat.current || ready.current ? now - lastHeard.current : 0;
            if (ws.bufferedAmount > MAX_BUFFERED_BYTES) backlogSince.current ??= now;
            else backlogSince.current = null;
            const backlogged = backlogSince.current !== null && now - backlogSince.current > WEAK_AFTER_MS;
            setWeak(silent > WEAK_AFTER_MS || backlogged);
            if (silent > DEAD_AFTER_MS) {
                socket.current = null;
                ready.current = false;
                ws.close(4000, 'No answer from the server');
                dropped(1006);
            }
        }, WATCH_INTERVAL_MS);
        return () => window.clearInterval(timer);
    }, [dropped]);

    // The tab keeps the consultation (id, lines, wake state) so that a reload rejoins it.
    const live = state === 'connecting' || state === 'connected' || state === 'reconnecting';
    useEffect(() => {
        if (!consultationId) return;
        store.save({
            consultationId,
            live,
            awake,
            lines: lines.map(({ speaker, text, at, seq }) => ({ speaker, text, at, seq })),
        });
    }, [store, consultationId, live, awake, lines]);

    // A reload in the middle of a consultation rejoins it.
    useEffect(() => {
        if (restored?.live) rejoin();
    }, [restored, rejoin]);

    // The network is back: retry now rather than at the end of the backoff.
    useEffect(() => {
        const online = () => retryNow();
        window.addEventListener('online', online);
        return () => window.removeEventListener('online', online);
    }, [retryNow]);

    useEffect(() => {
        mounted.current = true;
        return () => {
            // Leaving the page closes the socket; the stored consultation lets a return (or reload) rejoin it.
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
            retryNow,
            sendAudio,
            sendAudioEnd: () => send({ type: 'audioStreamEnd' }),
            sendVideo: (data: string) => send({ type: 'video', data }),
            sendText: (text: string) => send({ type: 'text', text }),
        }),
        [connect, disconnect, retryNow, sendAudio, send],
    );

    return {
        state,
        weak,
        error,
        awake,
        wakePhraseRequired,
        wakeMessage,
        demo,
        lines,
        interim,
        epoch,
        consultationId,
        audioMode,
        retryAt,
        offlineAudio,
        ...actions,
    };
};

export type LiveSession = ReturnType<typeof useLiveSession>;
