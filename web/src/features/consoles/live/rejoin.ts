/**
 * What lets a consultation survive a dropped socket or a reload:
 *
 * - `reconnectDelay`: exponential backoff with jitter, retried for as long as
 *   the page is open (a replica drain, close code 1012, retries at once);
 * - `consultationStore`: the consultation id, whether it was live, the wake
 *   state and the lines on screen, in sessionStorage per console, so a reload
 *   of the tab rejoins the same consultation with its transcript (the tab's
 *   storage only: it goes when the tab is closed);
 * - `OfflineBuffer`: the microphone audio captured while the socket is down,
 *   bounded by duration (the oldest goes first), sent on rejoin.
 */
import type { Speaker } from './protocol';

export const FIRST_RETRY_MS = 500;
export const MAX_RETRY_MS = 15_000;
/** Close code of a server that is restarting or draining (the next replica takes the consultation). */
export const SERVICE_RESTART = 1012;
/** Audio kept while the socket is down, sent when it is back. */
export const OFFLINE_AUDIO_MS = 30_000;

/**
 * Delay before retry number `attempt` (1, 2, ...): 0.5 s doubling up to 15 s, each drawn in the upper
 * half of its range so that many consoles dropped together do not come back together.
 */
export const reconnectDelay = (attempt: number, closeCode?: number, random: () => number = Math.random): number => {
    if (closeCode === SERVICE_RESTART && attempt <= 1) return Math.round(random() * 250);
    const ceiling = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1));
    return Math.round(ceiling * (0.5 + random() * 0.5));
};

export interface StoredLine {
    speaker: Speaker;
    text: string;
    at: string;
    seq?: number;
}

export interface StoredConsultation {
    consultationId: string;
    /** The socket was open or being re-opened (not ended by the doctor): a reload rejoins at once. */
    live: boolean;
    awake?: boolean;
    lines: StoredLine[];
}

/** Lines kept for a reload (the newest); the whole transcript stays on the server. */
export const STORED_LINES = 500;
const PREFIX = 'cara.live.';

const storage = (): Storage | null => {
    try {
        return window.sessionStorage;
    } catch {
        return null; // storage disabled: the consultation lasts as long as the page
    }
};

export const consultationStore = (consoleKey: string) => {
    const key = `${PREFIX}${consoleKey}`;
    return {
        load(): StoredConsultation | null {
            try {
                const raw = storage()?.getItem(key);
                if (!raw) return null;
                const value = JSON.parse(raw) as Partial<StoredConsultation>;
                if (typeof value.consultationId !== 'string' || !value.consultationId) return null;
                return {
                    consultationId: value.consultationId,
                    live: Boolean(value.live),
                    awake: typeof value.awake === 'boolean' ? value.awake : undefined,
                    lines: Array.isArray(value.lines) ? value.lines.filter(isLine) : [],
                };
            } catch {
                return null;
            }
        },
        save(value: StoredConsultation): void {
            try {
                storage()?.setItem(key, JSON.stringify({ ...value, lines: value.lines.slice(-STORED_LINES) }));
            } catch {
                // full or disabled: a reload will start without the lines, the server keeps them
            }
        },
        clear(): void {
            try {
                storage()?.removeItem(key);
            } catch {
                // nothing stored
            }
        },
    };
};

const isLine = (line: unknown): line is StoredLine => {
    const value = line as Partial<StoredLine> | null;
    return (
        !!value &&
        typeof value.text === 'string' &&
        typeof value.at === 'string' &&
        (value.speaker === 'user' || value.speaker === 'assistant' || value.speaker === 'tool')
    );
};

/** Frames waiting for the socket, bounded by their audio duration; the oldest are dropped first. */
export class OfflineBuffer<T> {
    private frames: { frame: T; ms: number }[] = [];
    private totalMs = 0;
    /** Milliseconds of audio dropped because the buffer was full (shown, never silent). */
    droppedMs = 0;

    constructor(private readonly limitMs: number = OFFLINE_AUDIO_MS) {}

    get durationMs(): number {
        return this.totalMs;
    }

    get size(): number {
        return this.frames.length;
    }

    push(frame: T, ms: number): void {
        this.frames.push({ frame, ms });
        this.totalMs += ms;
        while (this.totalMs > this.limitMs && this.frames.length > 1) {
            const dropped = this.frames.shift()!;
            this.totalMs -= dropped.ms;
            this.droppedMs += dropped.ms;
        }
    }

    /** Everything buffered, oldest first; the buffer is empty afterwards. */
    drain(): T[] {
        const frames = this.frames.map(entry => entry.frame);
        this.frames = [];
        this.totalMs = 0;
        return frames;
    }

    clear(): void {
        this.frames = [];
        this.totalMs = 0;
        this.droppedMs = 0;
    }
}
