import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
    CONNECTION_CLOSED,
    DEAD_AFTER_MS,
    HANDSHAKE_TIMEOUT_MS,
    LiveSocket,
    NETWORK_ERROR,
    NO_ANSWER_CLOSE,
    PROBE_INTERVAL_MS,
    SILENT_START_MS,
    VIDEO_BACKLOG_BYTES,
    WATCH_INTERVAL_MS,
    WEAK_AFTER_MS,
    type LiveSessionEvents,
    type SocketLike,
} from './liveSocket';
import { MAX_RETRY_MS, SERVICE_RESTART, type StoredConsultation } from './rejoin';

/** A WebSocket this test plays the server of. */
class FakeSocket implements SocketLike {
    readyState = 0;
    bufferedAmount = 0;
    binaryType: BinaryType = 'blob';
    onopen: ((event: Event) => void) | null = null;
    onmessage: ((event: MessageEvent) => void) | null = null;
    onclose: ((event: CloseEvent) => void) | null = null;
    sent: unknown[] = [];
    closed: { code?: number; reason?: string } | null = null;

    constructor(readonly url: string) {}

    send(data: string | ArrayBufferLike | ArrayBufferView): void {
        this.sent.push(typeof data === 'string' ? JSON.parse(data) : data);
    }

    close(code?: number, reason?: string): void {
        this.closed = { code, reason };
        this.readyState = 3;
    }

    // ---- the server's side

    accept(): void {
        this.readyState = 1;
        this.onopen?.({} as Event);
    }

    say(message: object): void {
        this.onmessage?.({ data: JSON.stringify(message) } as MessageEvent);
    }

    sayBinary(packet: ArrayBuffer): void {
        this.onmessage?.({ data: packet } as MessageEvent);
    }

    end(code: number, reason = ''): void {
        this.readyState = 3;
        this.onclose?.({ code, reason } as CloseEvent);
    }

    /** What the page sent, JSON frames by type. */
    frames(type: string): Record<string, unknown>[] {
        return this.sent.filter(
            (frame): frame is Record<string, unknown> =>
                typeof frame === 'object' && frame !== null && (frame as { type?: unknown }).type === type,
        );
    }
}

const connected = (extra: object = {}) => ({ type: 'status', state: 'connected', message: '', ...extra });

interface Harness {
    live: LiveSocket;
    sockets: FakeSocket[];
    /** The newest socket. */
    socket: () => FakeSocket;
    stored: { value: StoredConsultation | null; clears: number };
    network: EventTarget;
    /** What the page's probe of the link finds (GET /api/health/live), and how many it made. */
    link: { up: boolean; probes: number };
    events: { [K in keyof LiveSessionEvents]-?: ReturnType<typeof vi.fn> };
    detach: () => void;
}

const make = ({ stored = null as StoredConsultation | null, failOpen = false } = {}): Harness => {
    const sockets: FakeSocket[] = [];
    const store = { value: stored, clears: 0 };
    const network = new EventTarget();
    const link = { up: true, probes: 0 };
    const live = new LiveSocket({
        url: () => 'ws://cara.test/api/live?specialty=radiologist',
        token: () => Promise.resolve('token-1'),
        store: {
            load: () => store.value,
            save: value => {
                store.value = value;
            },
            clear: () => {
                store.value = null;
                store.clears += 1;
            },
        },
        createSocket: url => {
            if (failOpen) throw new SyntaxError('bad url');
            const socket = new FakeSocket(url);
            sockets.push(socket);
            return socket;
        },
        random: () => 1, // the top of each backoff step
        network,
        probe: () => {
            link.probes += 1;
            return Promise.resolve(link.up);
        },
    });
    const events = {
        onAudio: vi.fn(),
        onAudioPacket: vi.fn(),
        onInterrupted: vi.fn(),
        onTurnComplete: vi.fn(),
        onConnected: vi.fn(),
        onDisconnected: vi.fn(),
        onFailed: vi.fn(),
        onUnauthorized: vi.fn(),
        onDropped: vi.fn(),
    };
    live.events = events;
    const detach = live.attach();
    return { live, sockets, socket: () => sockets[sockets.length - 1], stored: store, network, link, events, detach };
};

/** Lets the token's promise settle (the auth frame goes after it). */
const settle = () => vi.advanceTimersByTimeAsync(0);

/** Nothing is opened again, even a minute later: still `count` sockets. */
const noRetry = async (h: Harness, count = 1) => {
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.sockets).toHaveLength(count);
};

/** Connects to consultation `id` and has the server accept it. */
const connectTo = async (h: Harness, id = 'c-1', status: object = { consultationId: id, rejoin: true }) => {
    h.live.connect(id);
    h.socket().accept();
    await settle();
    h.socket().say(connected(status));
};

beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-03-01T09:00:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('LiveSocket: connect', () => {
    it('opens a socket, sends the token and the consultation first, and is connected when the server says so', async () => {
        const h = make();
        h.live.wantOpus = true;
        expect(h.live.getSnapshot().state).toBe('disconnected');
        h.live.connect('c-1');
        expect(h.live.getSnapshot()).toMatchObject({ state: 'connecting', consultationId: 'c-1', epoch: 1 });
        expect(h.sockets).toHaveLength(1);
        expect(h.socket().url).toBe('ws://cara.test/api/live?specialty=radiologist');
        expect(h.socket().binaryType).toBe('arraybuffer');
        h.socket().accept();
        await settle();
        expect(h.socket().sent).toEqual([{ type: 'auth', token: 'token-1', consultationId: 'c-1', audio: 'opus' }]);
        h.socket().say({ type: 'status', state: 'connecting', message: '' });
        expect(h.live.getSnapshot().state).toBe('connecting');
        h.socket().say(connected({ consultationId: 'c-1', rejoin: true, audio: 'opus', demo: true, awake: false }));
        expect(h.live.getSnapshot()).toMatchObject({
            state: 'connected',
            consultationId: 'c-1',
            audioMode: 'opus',
            demo: true,
            awake: false,
            error: null,
        });
        expect(h.events.onConnected).toHaveBeenCalledTimes(1);
        // Kept for a reload of the tab.
        expect(h.stored.value).toMatchObject({ consultationId: 'c-1', live: true, awake: false });
    });

    it("takes the server's consultation id when it opened one, only if the server can rejoin it", async () => {
        const h = make();
        h.live.connect();
        h.socket().accept();
        await settle();
        expect(h.socket().sent).toEqual([{ type: 'auth', token: 'token-1' }]);
        h.socket().say(connected({ consultationId: 'old-server' }));
        expect(h.live.getSnapshot().consultationId).toBeNull();
        h.socket().say(connected({ consultationId: 'c-9', rejoin: true }));
        expect(h.live.getSnapshot().consultationId).toBe('c-9');
    });

    it("shows the server's error frames until dismissed, and the consultation goes on", async () => {
        const h = make();
        await connectTo(h);
        const message = 'Camera and screen sharing are not part of your plan.';
        h.socket().say({ type: 'error', message, code: 'camera_not_in_plan' });
        expect(h.live.getSnapshot()).toMatchObject({
            state: 'connected',
            notice: { message, code: 'camera_not_in_plan' },
        });
        h.live.dismissNotice();
        expect(h.live.getSnapshot().notice).toBeNull();
        h.socket().say({ type: 'error', message: 'Too fast.' });
        expect(h.live.getSnapshot().notice).toEqual({ message: 'Too fast.', code: null });
        h.live.disconnect();
        h.live.connect('c-2');
        expect(h.live.getSnapshot().notice).toBeNull(); // a new consultation starts without it
    });

    it('does not open a second socket while one is open', async () => {
        const h = make();
        await connectTo(h);
        h.live.connect('c-2');
        expect(h.sockets).toHaveLength(1);
        expect(h.live.getSnapshot().consultationId).toBe('c-1');
    });

    it('starts a new consultation with an empty transcript', async () => {
        const h = make();
        await connectTo(h);
        h.socket().say({ type: 'transcript', speaker: 'user', text: 'Hello', final: true, at: 't1', seq: 1 });
        h.live.disconnect();
        h.live.connect('c-2');
        expect(h.live.getSnapshot()).toMatchObject({ lines: [], epoch: 2, consultationId: 'c-2' });
    });

    it('shows the server renewing its provider connection as reconnecting, and a later connecting does not undo it', async () => {
        const h = make();
        await connectTo(h);
        h.socket().say({ type: 'status', state: 'reconnecting', message: '' });
        expect(h.live.getSnapshot().state).toBe('reconnecting');
        h.socket().say({ type: 'status', state: 'connecting', message: '' });
        expect(h.live.getSnapshot().state).toBe('reconnecting');
        h.socket().say(connected());
        expect(h.live.getSnapshot().state).toBe('connected');
        expect(h.events.onConnected).toHaveBeenCalledTimes(1); // a renewal is not a new consultation
        expect(h.sockets).toHaveLength(1);
    });

    it('answers pings and hands the assistant audio and turn events on', async () => {
        const h = make();
        await connectTo(h);
        h.socket().say({ type: 'ping', at: 42 });
        expect(h.socket().frames('pong')).toEqual([{ type: 'pong', at: 42 }]);
        h.socket().say({ type: 'audio', data: 'AAAA', mimeType: 'audio/pcm;rate=24000' });
        expect(h.events.onAudio).toHaveBeenCalledWith('AAAA', 'audio/pcm;rate=24000');
        const packet = new ArrayBuffer(8);
        h.socket().sayBinary(packet);
        expect(h.events.onAudioPacket).toHaveBeenCalledWith(packet);
        h.socket().say({ type: 'interrupted' });
        h.socket().say({ type: 'turnComplete' });
        expect(h.events.onInterrupted).toHaveBeenCalledTimes(1);
        expect(h.events.onTurnComplete).toHaveBeenCalledTimes(1);
        h.socket().say({ type: 'wake', awake: false, message: 'Cara is asleep.' });
        expect(h.live.getSnapshot()).toMatchObject({ awake: false, wakeMessage: 'Cara is asleep.' });
    });

    it('sends text, video and the end of speech only once the server is connected', async () => {
        const h = make();
        h.live.connect('c-1');
        h.socket().accept();
        await settle();
        expect(h.live.sendText('too early')).toBe(false);
        h.socket().say(connected());
        expect(h.live.sendText('What dose?')).toBe(true);
        expect(h.live.sendVideo('JPEG')).toBe(true);
        expect(h.live.sendAudioEnd()).toBe(true);
        expect(h.live.sendAudio('PCM', 128)).toBe(true);
        expect(h.socket().sent.slice(1)).toEqual([
            { type: 'text', text: 'What dose?' },
            { type: 'video', data: 'JPEG' },
            { type: 'audioStreamEnd' },
            { type: 'audio', data: 'PCM' },
        ]);
    });

    it('fails with the network error when no socket can be made', () => {
        const h = make({ failOpen: true });
        h.live.connect('c-1');
        expect(h.live.getSnapshot()).toMatchObject({ state: 'error', error: NETWORK_ERROR });
        expect(h.events.onFailed).toHaveBeenCalledTimes(1);
    });
});

describe('LiveSocket: transcript', () => {
    it('keeps final lines once, replaces interim text, and lets the server replace a line finished on a drop', async () => {
        const h = make();
        await connectTo(h);
        const s = h.socket();
        s.say({ type: 'transcript', speaker: 'user', text: 'He has', final: false, at: 't1' });
        s.say({ type: 'transcript', speaker: 'user', text: 'He has chest pain', final: false, at: 't1' });
        expect(h.live.getSnapshot().interim).toEqual({ user: { text: 'He has chest pain', at: 't1' } });
        s.say({ type: 'transcript', speaker: 'user', text: 'He has chest pain.', final: true, at: 't1', seq: 1 });
        s.say({ type: 'transcript', speaker: 'user', text: 'He has chest pain.', final: true, at: 't1', seq: 1 });
        expect(h.live.getSnapshot().interim).toEqual({});
        expect(h.live.getSnapshot().lines).toEqual([{ id: 1, speaker: 'user', text: 'He has chest pain.', at: 't1', seq: 1 }]);
        // Unfinished when the link goes: kept as a line, then replaced by the server's copy.
        s.say({ type: 'transcript', speaker: 'assistant', text: 'Noted', final: false, at: 't2' });
        s.end(1006);
        expect(h.live.getSnapshot().lines[1]).toEqual({ id: 2, speaker: 'assistant', text: 'Noted', at: 't2' });
        await vi.advanceTimersByTimeAsync(500);
        h.socket().accept();
        await settle();
        h.socket().say(connected());
        h.socket().say({ type: 'transcript', speaker: 'assistant', text: 'Noted: chest pain.', final: true, at: 't2', seq: 2 });
        expect(h.live.getSnapshot().lines.map(line => [line.id, line.text, line.seq])).toEqual([
            [1, 'He has chest pain.', 1],
            [2, 'Noted: chest pain.', 2],
        ]);
    });
});

describe('LiveSocket: cut and rejoin', () => {
    it('keeps everything through a dropped socket and rejoins the same consultation after the backoff', async () => {
        const h = make();
        await connectTo(h);
        h.socket().say({ type: 'transcript', speaker: 'user', text: 'He also smokes', final: false, at: 't3' });
        h.socket().end(1006);
        expect(h.live.getSnapshot()).toMatchObject({
            state: 'reconnecting',
            consultationId: 'c-1',
            interim: {},
            retryAt: Date.now() + 500,
        });
        expect(h.live.getSnapshot().lines.map(line => line.text)).toEqual(['He also smokes']);
        expect(h.events.onDropped).toHaveBeenCalledTimes(1);
        expect(h.events.onDisconnected).not.toHaveBeenCalled();
        expect(h.stored.value).toMatchObject({ consultationId: 'c-1', live: true });

        await vi.advanceTimersByTimeAsync(499);
        expect(h.sockets).toHaveLength(1);
        await vi.advanceTimersByTimeAsync(1);
        expect(h.sockets).toHaveLength(2);
        expect(h.live.getSnapshot().retryAt).toBeNull();
        h.socket().accept();
        await settle();
        expect(h.socket().frames('auth')).toEqual([{ type: 'auth', token: 'token-1', consultationId: 'c-1' }]);
        h.socket().say(connected({ consultationId: 'c-1', rejoin: true }));
        expect(h.live.getSnapshot()).toMatchObject({ state: 'connected', consultationId: 'c-1', retryAt: null });
        expect(h.events.onConnected).toHaveBeenCalledTimes(1); // no second connect sound
    });

    it('backs off 0.5 s doubling up to 15 s and never gives up; a connection resets the backoff', async () => {
        const h = make();
        await connectTo(h);
        const delays: number[] = [];
        for (let attempt = 1; attempt <= 12; attempt++) {
            h.socket().end(1006);
            const delay = h.live.getSnapshot().retryAt! - Date.now();
            delays.push(delay);
            await vi.advanceTimersByTimeAsync(delay);
            expect(h.sockets).toHaveLength(attempt + 1);
            h.socket().accept();
        }
        expect(delays).toEqual([500, 1000, 2000, 4000, 8000, ...Array(7).fill(MAX_RETRY_MS)]);
        await settle();
        h.socket().say(connected());
        h.socket().end(1006);
        expect(h.live.getSnapshot().retryAt! - Date.now()).toBe(500);
    });

    it('retries a draining replica (1012) at once', async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(SERVICE_RESTART);
        expect(h.live.getSnapshot().retryAt! - Date.now()).toBeLessThanOrEqual(250);
    });

    it("retries now on 'Retry now' or when the browser is back online", async () => {
        const h = make();
        await connectTo(h);
        h.live.retryNow(); // nothing to retry while connected
        expect(h.sockets).toHaveLength(1);
        h.socket().end(1006);
        h.socket().end(1006); // a stale socket's close is ignored
        h.live.retryNow();
        expect(h.sockets).toHaveLength(2);
        expect(h.live.getSnapshot().retryAt).toBeNull();
        h.socket().end(1006);
        expect(h.sockets).toHaveLength(2);
        h.network.dispatchEvent(new Event('online'));
        expect(h.sockets).toHaveLength(3);
        // The backoff's timer went with the early retry (the attempt itself is given up at 10 s).
        await vi.advanceTimersByTimeAsync(HANDSHAKE_TIMEOUT_MS - WATCH_INTERVAL_MS);
        expect(h.sockets).toHaveLength(3);
    });

    it('keeps microphone audio while the socket is down and sends it first on rejoin', async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(1006);
        expect(h.live.sendAudio('a1', 600)).toBe(false);
        expect(h.live.sendAudio('a2', 600)).toBe(false);
        expect(h.live.getSnapshot().offlineAudio).toEqual({ waitingMs: 1200, droppedMs: 0 });
        await vi.advanceTimersByTimeAsync(500);
        h.socket().accept();
        await settle();
        h.socket().say(connected());
        expect(h.socket().frames('audio').map(frame => frame.data)).toEqual(['a1', 'a2']);
        expect(h.live.getSnapshot().offlineAudio).toEqual({ waitingMs: 0, droppedMs: 0 });
        expect(h.live.sendAudio('a3', 600)).toBe(true);
        expect(h.socket().frames('audio').map(frame => frame.data)).toEqual(['a1', 'a2', 'a3']);
    });

    it('rejoins the consultation a reload left, with its lines, without a new connect sound', async () => {
        const h = make({
            stored: {
                consultationId: 'c-7',
                live: true,
                awake: false,
                lines: [{ speaker: 'user', text: 'Before the reload', at: 't0', seq: 4 }],
            },
        });
        expect(h.live.getSnapshot()).toMatchObject({ state: 'reconnecting', consultationId: 'c-7', awake: false });
        expect(h.live.getSnapshot().lines).toEqual([{ id: 1, speaker: 'user', text: 'Before the reload', at: 't0', seq: 4 }]);
        expect(h.sockets).toHaveLength(1);
        h.socket().accept();
        await settle();
        expect(h.socket().frames('auth')[0].consultationId).toBe('c-7');
        h.socket().say(connected({ consultationId: 'c-7', rejoin: true, awake: false }));
        expect(h.live.getSnapshot().state).toBe('connected');
        expect(h.events.onConnected).not.toHaveBeenCalled();
        h.live.disconnect();
        expect(h.events.onDisconnected).toHaveBeenCalledTimes(1);
    });

    it('shows, but does not rejoin, a consultation the doctor had left', () => {
        const h = make({ stored: { consultationId: 'c-7', live: false, lines: [] } });
        expect(h.live.getSnapshot()).toMatchObject({ state: 'disconnected', consultationId: 'c-7' });
        expect(h.sockets).toHaveLength(0);
    });
});

describe('LiveSocket: stall', () => {
    const ping = (h: Harness) => h.socket().say({ type: 'ping', at: Date.now() });

    it("says the link is weak after 3 s without a word, and recovers when the server is heard again", async () => {
        const h = make();
        await connectTo(h);
        ping(h);
        await vi.advanceTimersByTimeAsync(WEAK_AFTER_MS);
        expect(h.live.getSnapshot().weak).toBe(false);
        await vi.advanceTimersByTimeAsync(WATCH_INTERVAL_MS);
        expect(h.live.getSnapshot().weak).toBe(true);
        ping(h);
        await vi.advanceTimersByTimeAsync(WATCH_INTERVAL_MS);
        expect(h.live.getSnapshot().weak).toBe(false);
        expect(h.live.getSnapshot().state).toBe('connected');
    });

    it('gives the socket up after 10 s of silence and opens another one for the same consultation', async () => {
        const h = make();
        await connectTo(h);
        const stalled = h.socket();
        await vi.advanceTimersByTimeAsync(DEAD_AFTER_MS);
        expect(stalled.closed).toBeNull();
        expect(h.live.getSnapshot().weak).toBe(true);
        await vi.advanceTimersByTimeAsync(WATCH_INTERVAL_MS);
        expect(stalled.closed).toEqual({ code: NO_ANSWER_CLOSE, reason: 'No answer from the server' });
        expect(h.live.getSnapshot()).toMatchObject({ state: 'reconnecting', weak: false, consultationId: 'c-1' });
        expect(h.events.onDropped).toHaveBeenCalledTimes(1);
        stalled.end(NO_ANSWER_CLOSE); // its late close is not a refusal
        expect(h.live.getSnapshot().state).toBe('reconnecting');
        await vi.advanceTimersByTimeAsync(500);
        expect(h.sockets).toHaveLength(2);
        h.socket().accept();
        await settle();
        expect(h.socket().frames('auth')[0].consultationId).toBe('c-1');
    });

    it('does not count silence before the session is up', async () => {
        const h = make();
        h.live.connect('c-1');
        h.socket().accept();
        await vi.advanceTimersByTimeAsync(DEAD_AFTER_MS * 2);
        expect(h.live.getSnapshot()).toMatchObject({ state: 'connecting', weak: false });
        expect(h.socket().closed).toBeNull();
    });

    it('says the link is weak when the send backlog does not drain for 3 s', async () => {
        const h = make();
        await connectTo(h);
        h.socket().bufferedAmount = 100 * 1024;
        const keepTalking = setInterval(() => ping(h), 1000);
        await vi.advanceTimersByTimeAsync(WEAK_AFTER_MS);
        expect(h.live.getSnapshot().weak).toBe(false);
        await vi.advanceTimersByTimeAsync(WATCH_INTERVAL_MS * 2);
        expect(h.live.getSnapshot().weak).toBe(true);
        // Audio waits in the offline buffer instead of piling up in the socket.
        expect(h.live.sendAudio('a1', 128)).toBe(false);
        h.socket().bufferedAmount = 0;
        await vi.advanceTimersByTimeAsync(WATCH_INTERVAL_MS);
        expect(h.live.getSnapshot().weak).toBe(false);
        clearInterval(keepTalking);
    });
});

describe('LiveSocket: long outages', () => {
    /** Drops the socket `times` times, each retry refused at once: the backoff reaches its cap. */
    const dropRepeatedly = async (h: Harness, times: number) => {
        for (let i = 0; i < times; i++) {
            h.socket().end(1006);
            await vi.advanceTimersByTimeAsync(h.live.getSnapshot().retryAt! - Date.now());
        }
        h.socket().end(1006);
    };

    it('gives up an opening handshake that does not finish in 10 s, and tries again with a countdown', async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(1006);
        await vi.advanceTimersByTimeAsync(500);
        const stuck = h.socket(); // the link stalls: the handshake never ends
        expect(h.sockets).toHaveLength(2);
        await vi.advanceTimersByTimeAsync(HANDSHAKE_TIMEOUT_MS);
        expect(stuck.closed).toBeNull();
        await vi.advanceTimersByTimeAsync(WATCH_INTERVAL_MS);
        expect(stuck.closed).toEqual({ code: NO_ANSWER_CLOSE, reason: 'No answer from the server' });
        const snapshot = h.live.getSnapshot();
        expect(snapshot.state).toBe('reconnecting');
        expect(snapshot.retryAt! - Date.now()).toBe(1000); // the second step of the backoff
        // And so on, for as long as the page is open.
        for (let attempt = 3; attempt <= 8; attempt++) {
            await vi.advanceTimersByTimeAsync(h.live.getSnapshot().retryAt! - Date.now());
            expect(h.sockets).toHaveLength(attempt);
            await vi.advanceTimersByTimeAsync(HANDSHAKE_TIMEOUT_MS + WATCH_INTERVAL_MS);
            expect(h.socket().closed?.code).toBe(NO_ANSWER_CLOSE);
        }
    });

    it('gives up an open socket that heard nothing at all in 30 s', async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(1006);
        await vi.advanceTimersByTimeAsync(500);
        h.socket().accept(); // open, then nothing: no status, no ping
        await vi.advanceTimersByTimeAsync(SILENT_START_MS + WATCH_INTERVAL_MS);
        expect(h.socket().closed?.code).toBe(NO_ANSWER_CLOSE);
        expect(h.live.getSnapshot().state).toBe('reconnecting');
    });

    it('probes the link each second while it waits, and retries once the link is back', async () => {
        const h = make();
        await connectTo(h);
        h.link.up = false;
        await dropRepeatedly(h, 8);
        const due = h.live.getSnapshot().retryAt! - Date.now();
        expect(due).toBe(MAX_RETRY_MS);
        const sockets = h.sockets.length;
        await vi.advanceTimersByTimeAsync(3 * PROBE_INTERVAL_MS);
        expect(h.link.probes).toBeGreaterThanOrEqual(3);
        expect(h.sockets).toHaveLength(sockets);
        h.link.up = true; // the link returns
        await vi.advanceTimersByTimeAsync(PROBE_INTERVAL_MS);
        expect(h.sockets).toHaveLength(sockets + 1); // long before the 15 s try
        expect(h.live.getSnapshot().retryAt).toBeNull();
    });

    it('does not shorten the backoff when the link was never down (the server refuses sockets)', async () => {
        const h = make();
        await connectTo(h);
        await dropRepeatedly(h, 8);
        const sockets = h.sockets.length;
        await vi.advanceTimersByTimeAsync(MAX_RETRY_MS - 1);
        expect(h.link.probes).toBeGreaterThan(0);
        expect(h.sockets).toHaveLength(sockets);
        await vi.advanceTimersByTimeAsync(1);
        expect(h.sockets).toHaveLength(sockets + 1);
    });

    it("'Retry now' replaces an attempt that has not been answered", async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(1006);
        await vi.advanceTimersByTimeAsync(500);
        const stuck = h.socket();
        h.live.retryNow();
        expect(stuck.closed?.code).toBe(NO_ANSWER_CLOSE);
        expect(h.sockets).toHaveLength(3);
        h.socket().accept();
        await settle();
        h.socket().say(connected());
        h.live.retryNow(); // connected: nothing to replace
        expect(h.sockets).toHaveLength(3);
    });
});

describe('LiveSocket: the uplink', () => {
    it("takes the link's delay from the server's pings, and forgets it on a drop", async () => {
        const h = make();
        await connectTo(h);
        expect(h.live.getSnapshot().linkDelayMs).toBeNull();
        h.socket().say({ type: 'ping', at: 1, lag: 0, rtt: 180 });
        expect(h.live.getSnapshot().linkDelayMs).toBe(200);
        h.socket().say({ type: 'ping', at: 2, lag: 4000, rtt: 180 }); // pongs stuck behind the uplink
        expect(h.live.getSnapshot().linkDelayMs).toBe(4000);
        h.socket().say({ type: 'ping', at: 3 }); // an older server: nothing measured
        expect(h.live.getSnapshot().linkDelayMs).toBe(0);
        h.socket().end(1006);
        expect(h.live.getSnapshot().linkDelayMs).toBeNull();
    });

    it('drops a camera frame rather than queue it behind unsent data', async () => {
        const h = make();
        await connectTo(h);
        expect(h.live.sendVideo('frame-1')).toBe(true);
        h.socket().bufferedAmount = VIDEO_BACKLOG_BYTES + 1;
        expect(h.live.sendVideo('frame-2')).toBe(false);
        expect(h.live.sendAudio('audio-1', 128)).toBe(true); // audio still goes
        h.socket().bufferedAmount = 0;
        expect(h.live.sendVideo('frame-3')).toBe(true);
        expect(h.socket().frames('video').map(frame => frame.data)).toEqual(['frame-1', 'frame-3']);
    });
});

describe('LiveSocket: takeover and refusals', () => {
    it('ends, without retrying, when another window takes the consultation over', async () => {
        const h = make();
        await connectTo(h);
        const reason = 'This consultation was opened in another window.';
        h.socket().say({ type: 'status', state: 'error', message: reason, code: 'replaced' });
        expect(h.live.getSnapshot().state).toBe('connected'); // until the socket closes
        h.socket().end(4409, reason);
        expect(h.live.getSnapshot()).toMatchObject({ state: 'error', error: reason, retryAt: null });
        expect(h.events.onDisconnected).toHaveBeenCalledTimes(1);
        expect(h.events.onDropped).not.toHaveBeenCalled();
        await noRetry(h);
    });

    it("takes a 44xx close's reason, without its prefix, as final", async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(4409, '[ERROR] This consultation was opened in another window.');
        expect(h.live.getSnapshot()).toMatchObject({
            state: 'error',
            error: 'This consultation was opened in another window.',
        });
        await noRetry(h);
    });

    it("says 'Connection closed' for a 44xx close without a reason", async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(4400);
        expect(h.live.getSnapshot().error).toBe(CONNECTION_CLOSED);
    });

    it('fails a consultation refused before it connected, and signs out on an unauthorized token', async () => {
        const h = make();
        h.live.connect('c-1');
        h.socket().accept();
        await settle();
        h.socket().say({ type: 'status', state: 'error', message: 'Session expired', code: 'unauthorized' });
        expect(h.events.onUnauthorized).toHaveBeenCalledTimes(1);
        h.socket().end(4401);
        expect(h.live.getSnapshot()).toMatchObject({ state: 'error', error: 'Session expired' });
        expect(h.events.onFailed).toHaveBeenCalledTimes(1);
        expect(h.events.onDisconnected).not.toHaveBeenCalled();
    });

    it('forgets a consultation the server will not continue', async () => {
        const h = make();
        await connectTo(h);
        const before = h.stored.clears;
        h.socket().say({ type: 'status', state: 'error', message: '', code: 'not_found' });
        h.socket().end(4404);
        expect(h.stored.clears).toBe(before + 1);
        expect(h.live.getSnapshot()).toMatchObject({ state: 'error', error: CONNECTION_CLOSED });
        // The page still shows it, so it is kept again, no longer live: a reload does not rejoin it.
        expect(h.stored.value).toMatchObject({ consultationId: 'c-1', live: false });
    });
});

describe('LiveSocket: ending', () => {
    it('ends the consultation on Disconnect: socket closed, nothing kept, no retry', async () => {
        const h = make();
        await connectTo(h);
        const socket = h.socket();
        h.live.disconnect();
        expect(socket.closed).toEqual({ code: 1000, reason: 'Disconnected by the user' });
        expect(h.live.getSnapshot()).toMatchObject({ state: 'disconnected', consultationId: null, error: null });
        expect(h.stored.value).toBeNull();
        expect(h.events.onDisconnected).toHaveBeenCalledTimes(1);
        expect(h.live.sendAudio('a1', 128)).toBe(false);
        expect(h.live.getSnapshot().offlineAudio.waitingMs).toBe(0);
        socket.end(1000);
        await noRetry(h);
    });

    it('stops retrying when the doctor disconnects during the backoff', async () => {
        const h = make();
        await connectTo(h);
        h.socket().end(1006);
        h.live.sendAudio('a1', 600);
        h.live.disconnect();
        expect(h.live.getSnapshot()).toMatchObject({ state: 'disconnected', retryAt: null });
        expect(h.live.getSnapshot().offlineAudio).toEqual({ waitingMs: 0, droppedMs: 0 });
        await noRetry(h);
    });

    it('closes the socket when the page goes, keeping the consultation for a return', async () => {
        const h = make();
        await connectTo(h);
        const socket = h.socket();
        h.detach();
        expect(socket.closed).toEqual({ code: 1000, reason: 'Page closed' });
        socket.end(1000);
        expect(h.stored.value).toMatchObject({ consultationId: 'c-1', live: true });
        h.network.dispatchEvent(new Event('online'));
        await noRetry(h);
    });
});
