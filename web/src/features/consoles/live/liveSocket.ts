/**
 * One live consultation over `/api/live`, without React: the socket, its
 * state machine, the transcript, and the audio/interruption events for
 * playback. useLiveSession.ts renders its snapshots; the tests in
 * liveSocket.test.ts drive it with a fake WebSocket and fake timers.
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
 * browser's `online` event retries now). A socket that hears nothing for 10 s
 * (the server pings every second) is given up and another one opened, and so is
 * a socket whose opening handshake has not finished in 10 s or that heard
 * nothing at all in 30 s (a stalled link would otherwise hold one attempt
 * forever); 3 s of silence, or a send backlog that does not drain, is a weak
 * link. While a dropped consultation waits for its next try, a cheap probe
 * (`probe`, GET /api/health/live, every second) notices the link's return: once
 * a probe has failed, the first one that succeeds retries at once, so the
 * console is back within a few seconds of the link whatever the outage's length
 * (the backoff still spaces the socket attempts against a server that is down). Nothing on
 * screen is cleared: the lines, the wake state and the summary stay, and they
 * are kept in the tab's sessionStorage so a reload rejoins the same
 * consultation with its lines. Microphone audio captured while the socket is
 * down waits (up to 30 s, the oldest dropped first and counted) and is sent on
 * rejoin.
 *
 * A refusal (the server's `status` of state `error`, then a 44xx close, such
 * as 4409 when another window took the consultation over) is final.
 * Disconnecting ends the consultation: the stored id is forgotten and the next
 * Connect starts a new one.
 */
import {
    closeReasonText,
    parseServerMessage,
    type ClientMessage,
    type ServerMessage,
    type Speaker,
} from './protocol';
import { OfflineBuffer, reconnectDelay, type StoredConsultation, type StoredLine } from './rejoin';

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

/** What the console shows of the consultation; a new object whenever something in it changed. */
export interface LiveSnapshot {
    state: ConnectionState;
    /** Nothing heard for 3 s (the server pings every second), or the socket's backlog is not draining. */
    weak: boolean;
    error: string | null;
    awake: boolean;
    wakePhraseRequired: boolean;
    wakeMessage: string | null;
    demo: boolean;
    lines: TranscriptEntry[];
    interim: Partial<Record<Speaker, InterimLine>>;
    /** Counts the consultations the doctor started here: what belongs to one (a summary) resets with it. */
    epoch: number;
    consultationId: string | null;
    /** What the server agreed to on this socket ('pcm' until it says otherwise). */
    audioMode: 'opus' | 'pcm';
    /** When the next retry of a dropped socket is due (ms since the epoch), for the 'Reconnecting' line. */
    retryAt: number | null;
    /** The link's delay as the server measures it (its pings' `lag` and `rtt`, to 100 ms); null: unknown. */
    linkDelayMs: number | null;
    /** Microphone audio waiting for the socket, and dropped because the wait was too long (ms). */
    offlineAudio: { waitingMs: number; droppedMs: number };
    /** The server's latest error frame (e.g. camera not in the plan), shown until dismissed. */
    notice: { message: string; code: string | null } | null;
}

export const CONNECTION_CLOSED = 'Connection closed';
export const MAX_ATTEMPTS_REACHED = 'Max reconnection attempts reached';
export const NETWORK_ERROR = 'Network error - please check your connection';
// Past this much unsent data the network is not keeping up: audio waits in the offline buffer
// (bounded, oldest dropped first) instead of piling up in the socket.
export const MAX_BUFFERED_BYTES = 64 * 1024;
/** A camera frame is not sent over more than this much unsent data (audio goes first). */
export const VIDEO_BACKLOG_BYTES = 8 * 1024;
/** The server pings every second: this long without hearing anything, the link is weak. */
export const WEAK_AFTER_MS = 3000;
/** This long without hearing anything, the socket is given up and re-opened. */
export const DEAD_AFTER_MS = 10_000;
export const WATCH_INTERVAL_MS = 500;
/** Close code of a socket given up by this page for its silence. */
export const NO_ANSWER_CLOSE = 4000;
/** An opening handshake not finished this long after the socket was made: given up, tried again. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;
/** An open socket that heard nothing at all (no status, no ping) this long: given up, tried again. */
export const SILENT_START_MS = 30_000;
/** While a dropped consultation waits: how often the link is probed. */
export const PROBE_INTERVAL_MS = 1000;

// WebSocket.readyState values (the standard's numbers, so no global WebSocket is needed to compare).
const CONNECTING = 0;
const OPEN = 1;

/** A microphone frame: base64 PCM (JSON) or an Opus packet (binary). */
export type AudioFrame = string | Uint8Array;

/** The part of a browser WebSocket this module uses. */
export interface SocketLike {
    readonly readyState: number;
    readonly bufferedAmount: number;
    binaryType: BinaryType;
    onopen: ((event: Event) => void) | null;
    onmessage: ((event: MessageEvent) => void) | null;
    onclose: ((event: CloseEvent) => void) | null;
    send(data: string | ArrayBufferLike | ArrayBufferView): void;
    close(code?: number, reason?: string): void;
}

/** Where the consultation is kept for a reload (rejoin.ts `consultationStore`). */
export interface ConsultationKeeper {
    load(): StoredConsultation | null;
    save(value: StoredConsultation): void;
    clear(): void;
}

/** Where the browser says the network is back (`window`). */
type OnlineEvents = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;

export interface LiveSocketOptions {
    /** The socket's address, asked for each time a socket is opened. */
    url: () => string;
    /** A fresh access token for the first frame. */
    token: () => Promise<string | null>;
    store: ConsultationKeeper;
    createSocket?: (url: string) => SocketLike;
    /** The jitter of the backoff (Math.random). */
    random?: () => number;
    /** Its `online` event retries a dropped socket at once (window, when there is one). */
    network?: OnlineEvents | null;
    /** Whether the server answers now (a cheap request with a short timeout); none: no probing. */
    probe?: (() => Promise<boolean>) | null;
}

const finite = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

const sendFrame = (ws: SocketLike, frame: AudioFrame) => {
    if (typeof frame === 'string') ws.send(JSON.stringify({ type: 'audio', data: frame } satisfies ClientMessage));
    else ws.send(frame);
};

const toEntry = (line: StoredLine, id: number): TranscriptEntry => ({ id, ...line });

const isLive = (state: ConnectionState) => state === 'connecting' || state === 'connected' || state === 'reconnecting';

export class LiveSocket {
    /** The console's handlers, replaced on every render. */
    events: LiveSessionEvents = {};
    /** This browser encodes and decodes Opus (WebCodecs): asked for in the first frame. */
    wantOpus = false;

    private snapshot: LiveSnapshot;
    private readonly listeners = new Set<() => void>();
    private readonly restoredLive: boolean;
    private readonly createSocket: (url: string) => SocketLike;
    private readonly random: () => number;
    private readonly network: OnlineEvents | null;

    private socket: SocketLike | null = null;
    private manual = false;
    private attached = true;
    private attempts = 0;
    private retryTimer: ReturnType<typeof setTimeout> | undefined;
    private refusal: { message: string; code?: string } | null = null;
    private announced = false; // the connect sound played for this consultation
    private ready = false; // the server said `connected` on the current socket
    private nextId: number;
    private lastHeard = 0;
    private heartbeat = false; // the server pings on this socket
    private backlogSince: number | null = null;
    private openedAt = 0;
    private probing = false;
    private lastProbe = 0;
    private probeFailed: number | null = null; // when a probe that failed was made (since the drop)
    private readonly offline = new OfflineBuffer<AudioFrame>();
    private saved: Pick<LiveSnapshot, 'consultationId' | 'awake' | 'lines'> & { live: boolean };

    constructor(private readonly options: LiveSocketOptions) {
        this.createSocket = options.createSocket ?? (url => new WebSocket(url));
        this.random = options.random ?? Math.random;
        this.network = options.network !== undefined ? options.network : typeof window === 'undefined' ? null : window;
        // What a reload of this tab left: the consultation to rejoin and its lines.
        const restored = options.store.load();
        this.restoredLive = Boolean(restored?.live);
        const lines = (restored?.lines ?? []).map((line, index) => toEntry(line, index + 1));
        this.nextId = lines.length + 1;
        this.snapshot = {
            state: 'disconnected',
            weak: false,
            error: null,
            awake: restored?.awake ?? true,
            wakePhraseRequired: false,
            wakeMessage: null,
            demo: false,
            lines,
            interim: {},
            epoch: 0,
            consultationId: restored?.consultationId ?? null,
            audioMode: 'pcm',
            retryAt: null,
            linkDelayMs: null,
            offlineAudio: { waitingMs: 0, droppedMs: 0 },
            notice: null,
        };
        this.saved = { consultationId: this.snapshot.consultationId, live: false, awake: this.snapshot.awake, lines };
    }

    // ---------------------------------------------------------------- the store's side (for React)

    getSnapshot = (): LiveSnapshot => this.snapshot;

    subscribe = (listener: () => void): (() => void) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    };

    /**
     * The console is on screen: the link is watched, the network's return retries at once, and a
     * reload in the middle of a consultation rejoins it. Returns the detach (leaving the page closes
     * the socket; the stored consultation lets a return, or a reload, rejoin it).
     */
    attach = (): (() => void) => {
        this.attached = true;
        const watch = setInterval(this.watch, WATCH_INTERVAL_MS);
        const online = () => this.retryNow();
        this.network?.addEventListener('online', online);
        if (this.restoredLive) this.rejoin();
        return () => {
            clearInterval(watch);
            this.network?.removeEventListener('online', online);
            this.attached = false;
            this.manual = true;
            this.clearRetry();
            this.socket?.close(1000, 'Page closed');
            this.socket = null;
        };
    };

    private update(patch: Partial<LiveSnapshot>): void {
        const current = this.snapshot;
        if ((Object.keys(patch) as (keyof LiveSnapshot)[]).every(key => Object.is(patch[key], current[key]))) return;
        this.snapshot = { ...current, ...patch };
        this.persist();
        for (const listener of this.listeners) listener();
    }

    /** The tab keeps the consultation (id, lines, wake state) so that a reload rejoins it. */
    private persist(): void {
        const { consultationId, awake, lines, state } = this.snapshot;
        const next = { consultationId, live: isLive(state), awake, lines };
        const last = this.saved;
        if (
            next.consultationId === last.consultationId &&
            next.live === last.live &&
            next.awake === last.awake &&
            next.lines === last.lines
        )
            return;
        this.saved = next;
        if (!consultationId) return;
        this.options.store.save({
            consultationId,
            live: next.live,
            awake,
            lines: lines.map(({ speaker, text, at, seq }) => ({ speaker, text, at, seq })),
        });
    }

    private showOffline(): void {
        const { durationMs, droppedMs } = this.offline;
        const shown = this.snapshot.offlineAudio;
        if (shown.waitingMs === durationMs && shown.droppedMs === droppedMs) return;
        this.update({ offlineAudio: { waitingMs: durationMs, droppedMs } });
    }

    // ---------------------------------------------------------------- sending

    private writable(ws: SocketLike | null): ws is SocketLike {
        return !!ws && ws.readyState === OPEN && this.ready;
    }

    /** Sends what waited while the link was down, oldest first, as far as the socket keeps up. */
    private flushOffline(): boolean {
        const ws = this.socket;
        if (!this.offline.size) return true;
        if (!this.writable(ws) || ws.bufferedAmount > MAX_BUFFERED_BYTES) return false;
        for (const frame of this.offline.drain()) sendFrame(ws, frame);
        this.showOffline();
        return true;
    }

    send = (message: ClientMessage): boolean => {
        const ws = this.socket;
        if (!this.writable(ws)) return false;
        ws.send(JSON.stringify(message));
        return true;
    };

    /** A microphone chunk of `ms` milliseconds: sent now, or kept (bounded) until the socket is back. */
    sendAudio = (data: AudioFrame, ms: number): boolean => {
        const ws = this.socket;
        if (this.flushOffline() && this.writable(ws) && ws.bufferedAmount <= MAX_BUFFERED_BYTES) {
            sendFrame(ws, data);
            return true;
        }
        if (this.manual || !this.snapshot.consultationId) return false;
        this.offline.push(data, ms);
        this.showOffline();
        return false;
    };

    sendAudioEnd = (): boolean => this.send({ type: 'audioStreamEnd' });
    /** A camera frame goes only onto an empty socket: one that would wait is dropped, never queued. */
    sendVideo = (data: string): boolean => {
        const ws = this.socket;
        if (!this.writable(ws) || ws.bufferedAmount > VIDEO_BACKLOG_BYTES || this.offline.size) return false;
        return this.send({ type: 'video', data });
    };
    sendText = (text: string): boolean => this.send({ type: 'text', text });

    // ---------------------------------------------------------------- the transcript

    private addFinal(line: StoredLine): void {
        const current = this.snapshot.lines;
        if (line.seq !== undefined && current.some(entry => entry.seq === line.seq)) return; // replayed
        // A line this page finished itself when the socket dropped: the server's copy replaces it.
        const local = current.findIndex(
            entry => entry.seq === undefined && entry.speaker === line.speaker && entry.at === line.at,
        );
        if (local >= 0) {
            const next = [...current];
            next[local] = { ...next[local], ...line };
            this.update({ lines: next });
            return;
        }
        this.update({ lines: [...current, toEntry(line, this.nextId++)] });
    }

    private onMessage(message: ServerMessage): void {
        switch (message.type) {
            case 'status':
                if (message.state === 'connected') this.onConnected(message);
                else if (message.state === 'reconnecting') this.update({ state: 'reconnecting' });
                else if (message.state === 'connecting') {
                    if (this.snapshot.state !== 'reconnecting') this.update({ state: 'connecting' });
                } else if (message.state === 'error') {
                    this.refusal = { message: message.message || CONNECTION_CLOSED, code: message.code };
                    if (message.code === 'unauthorized') this.events.onUnauthorized?.();
                }
                break;
            case 'wake':
                this.update({ awake: message.awake, wakeMessage: message.message });
                break;
            case 'audio':
                if (message.data) this.events.onAudio?.(message.data, message.mimeType);
                break;
            case 'interrupted':
                this.events.onInterrupted?.();
                break;
            case 'turnComplete':
                this.events.onTurnComplete?.();
                break;
            case 'transcript': {
                const { speaker, text, at, seq } = message;
                if (message.final) {
                    if (text.trim()) this.addFinal({ speaker, text, at, seq });
                    const interim = this.snapshot.interim;
                    if (speaker in interim) {
                        const next = { ...interim };
                        delete next[speaker];
                        this.update({ interim: next });
                    }
                } else {
                    this.update({ interim: { ...this.snapshot.interim, [speaker]: { text, at } } });
                }
                break;
            }
            case 'error':
                // A frame the server could not use (or may not relay): the consultation goes on,
                // and the doctor is told why.
                this.update({ notice: { message: message.message, code: message.code ?? null } });
                break;
            default:
                break; // toolResult: shown through the transcript lines
        }
    }

    private onConnected(message: Extract<ServerMessage, { type: 'status' }>): void {
        this.attempts = 0;
        this.probeFailed = null;
        this.ready = true;
        const patch: Partial<LiveSnapshot> = {
            error: null,
            retryAt: null,
            state: 'connected',
            awake: message.awake ?? true,
            wakePhraseRequired: Boolean(message.wakePhraseRequired),
            demo: Boolean(message.demo),
            audioMode: message.audio === 'opus' ? 'opus' : 'pcm',
        };
        // The server names the consultation; it is kept for rejoining once the server takes
        // ids in the first frame (`rejoin` in `connected`).
        if (message.consultationId && (this.snapshot.consultationId || message.rejoin))
            patch.consultationId = message.consultationId;
        this.update(patch);
        if (!this.announced) {
            this.announced = true;
            this.events.onConnected?.();
        }
        this.flushOffline();
    }

    // ---------------------------------------------------------------- the state machine

    private clearRetry(): void {
        clearTimeout(this.retryTimer);
        this.retryTimer = undefined;
    }

    /** The consultation is over on this page (refused, or ended by the doctor). */
    private finish(message: string | null): void {
        this.clearRetry();
        this.offline.clear();
        this.update({ retryAt: null });
        this.showOffline();
        const wasConnected = this.announced;
        this.announced = false;
        if (message === null) {
            this.update({ state: 'disconnected' });
            if (wasConnected) this.events.onDisconnected?.();
        } else {
            this.update({ error: message, state: 'error' });
            if (wasConnected) this.events.onDisconnected?.();
            else this.events.onFailed?.();
        }
    }

    /** The socket is gone without a refusal: keep everything and open another one after a while. */
    private dropped(code: number): void {
        // What was being said stays on screen as a line; the server keeps its own copy.
        const unfinished = this.snapshot.interim;
        for (const speaker of ['user', 'assistant'] as const) {
            const line = unfinished[speaker];
            if (line?.text.trim()) this.addFinal({ speaker, text: line.text, at: line.at });
        }
        this.update({ interim: {} });
        this.events.onDropped?.();
        this.attempts += 1;
        const delay = reconnectDelay(this.attempts, code, this.random);
        this.backlogSince = null;
        this.update({ weak: false, state: 'reconnecting', retryAt: Date.now() + delay, linkDelayMs: null });
        this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            if (!this.manual && this.attached) this.open();
        }, delay);
    }

    private open(): void {
        this.clearRetry();
        this.update({ retryAt: null });
        let ws: SocketLike;
        try {
            ws = this.createSocket(this.options.url());
        } catch {
            this.finish(NETWORK_ERROR);
            return;
        }
        ws.binaryType = 'arraybuffer';
        this.socket = ws;
        this.ready = false;
        this.refusal = null;
        this.heartbeat = false;
        this.lastHeard = Date.now();
        this.openedAt = this.lastHeard;
        ws.onopen = () => {
            // The access token lives minutes: renewed first when it is about to end.
            void this.options.token().then(token => {
                if (this.socket !== ws || ws.readyState !== OPEN) return;
                const auth: ClientMessage = { type: 'auth', token: token ?? '' };
                if (this.snapshot.consultationId) auth.consultationId = this.snapshot.consultationId;
                if (this.wantOpus) auth.audio = 'opus';
                ws.send(JSON.stringify(auth));
            });
        };
        ws.onmessage = (event: MessageEvent) => {
            if (this.socket !== ws) return;
            this.lastHeard = Date.now();
            if (event.data instanceof ArrayBuffer) {
                this.events.onAudioPacket?.(event.data);
                return;
            }
            const message = parseServerMessage(event.data);
            if (message?.type === 'ping') {
                this.heartbeat = true;
                const measured = Math.max(finite(message.lag), finite(message.rtt));
                this.update({ linkDelayMs: Math.round(measured / 100) * 100 });
                ws.send(JSON.stringify({ type: 'pong', at: message.at } satisfies ClientMessage));
            } else if (message) this.onMessage(message);
        };
        ws.onclose = (event: CloseEvent) => {
            if (this.socket !== ws || !this.attached) return;
            this.socket = null;
            this.ready = false;
            const refused = this.refusal;
            if (refused !== null) {
                // A consultation the server will not continue (signed, not this doctor's): forget it.
                if (refused.code === 'not_found') this.options.store.clear();
                this.update({ interim: {} });
                this.finish(refused.message);
                return;
            }
            // Closed by the application with a reason but no status first: the reason is final.
            if (event.code >= 4000 && event.code < 5000) {
                this.update({ interim: {} });
                this.finish(closeReasonText(event.reason ?? '') || CONNECTION_CLOSED);
                return;
            }
            this.dropped(event.code);
        };
    }

    /**
     * Watches the link: silent for 3 s (while the server pings) or a backlog that does not drain is a weak
     * connection; silent for 10 s, the socket is given up and another one opened.
     */
    private watch = (): void => {
        const ws = this.socket;
        const now = Date.now();
        this.probeLink(now);
        if (!ws) return;
        if (ws.readyState !== OPEN) {
            if (ws.readyState === CONNECTING && now - this.openedAt > HANDSHAKE_TIMEOUT_MS) this.giveUp(ws);
            return;
        }
        if (!this.ready && !this.heartbeat && now - this.lastHeard > SILENT_START_MS) {
            this.giveUp(ws);
            return;
        }
        // Once the session is up the server pings every second, so silence counts from then on,
        // even if the link stalled before this socket's first ping arrived.
        const silent = this.heartbeat || this.ready ? now - this.lastHeard : 0;
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) this.backlogSince ??= now;
        else this.backlogSince = null;
        const backlogged = this.backlogSince !== null && now - this.backlogSince > WEAK_AFTER_MS;
        this.update({ weak: silent > WEAK_AFTER_MS || backlogged });
        if (silent > DEAD_AFTER_MS) this.giveUp(ws);
    };

    /** This socket will not do: closed without waiting for its close, and another one tried later. */
    private giveUp(ws: SocketLike): void {
        this.socket = null;
        this.ready = false;
        ws.close(NO_ANSWER_CLOSE, 'No answer from the server');
        this.dropped(1006);
    }

    /** Waiting to rejoin (a retry due, or an attempt not answered yet): is the link back? */
    private probeLink(now: number): void {
        const probe = this.options.probe;
        const waiting = this.retryTimer !== undefined || (this.socket !== null && !this.ready);
        if (!probe || this.probing || this.manual || !waiting || this.snapshot.state !== 'reconnecting') return;
        if (now - this.lastProbe < PROBE_INTERVAL_MS) return;
        this.lastProbe = now;
        this.probing = true;
        void probe()
            .catch(() => false)
            .then(up => {
                this.probing = false;
                // Rejoined (or ended) meanwhile: this answer is about a link that is over.
                if (this.ready || this.manual || this.snapshot.state !== 'reconnecting') return;
                if (!up) {
                    this.probeFailed = now;
                    return;
                }
                if (this.probeFailed === null) return; // the link never went: the backoff decides
                const failedAt = this.probeFailed;
                this.probeFailed = null;
                // A retry due, or an attempt made while the link was down: now. A later attempt
                // (made since the link came back) is left to finish.
                if (this.retryTimer !== undefined || this.openedAt <= failedAt) this.retryNow();
            });
    }

    // ---------------------------------------------------------------- what the doctor does

    /**
     * Starts a consultation: `id` is the one the console opened (after the patient's consent); without it
     * the server opens one and says which in `connected`.
     */
    connect = (id?: string): void => {
        if (this.socket || this.retryTimer !== undefined) return;
        this.manual = false;
        this.attempts = 0;
        this.announced = false;
        this.offline.clear();
        // A new consultation starts with an empty transcript (spec §4).
        this.update({
            consultationId: id ?? null,
            epoch: this.snapshot.epoch + 1,
            lines: [],
            interim: {},
            error: null,
            wakeMessage: null,
            demo: false,
            notice: null,
            state: 'connecting',
        });
        this.showOffline();
        this.open();
    };

    /** Rejoins the stored consultation (after a reload): its lines are already on screen. */
    rejoin = (): void => {
        if (this.socket || this.retryTimer !== undefined || !this.snapshot.consultationId) return;
        this.manual = false;
        this.attempts = 0;
        this.announced = true; // the consultation was announced before the reload
        this.update({ error: null, state: 'reconnecting' });
        this.open();
    };

    dismissNotice = (): void => {
        this.update({ notice: null });
    };

    /** Skips the wait before the next retry, or replaces an attempt that has not been answered. */
    retryNow = (): void => {
        if (this.manual) return;
        if (this.retryTimer !== undefined) {
            this.open();
            return;
        }
        const ws = this.socket;
        if (ws && !this.ready && this.snapshot.state === 'reconnecting') {
            this.socket = null;
            ws.close(NO_ANSWER_CLOSE, 'No answer from the server');
            this.open();
        }
    };

    disconnect = (): void => {
        this.manual = true;
        const ws = this.socket;
        this.socket = null;
        this.ready = false;
        if (ws && ws.readyState <= OPEN) ws.close(1000, 'Disconnected by the user');
        // The consultation ends here: the next Connect starts another one.
        this.update({ interim: {}, consultationId: null });
        this.options.store.clear();
        this.finish(null);
    };
}
