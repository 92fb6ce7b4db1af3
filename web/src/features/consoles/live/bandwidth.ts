/**
 * Low-bandwidth mode and the microphone's silence gate.
 *
 * Low-bandwidth mode is on when the browser says the network is slow or the
 * user asked to save data (`navigator.connection`: effectiveType 2g/3g,
 * saveData), or when the socket has been weak for a while (the server's pings
 * go unheard, or the send backlog does not drain); the doctor can switch it
 * either way from the tray, and that choice wins. In it, video frames are
 * smaller (768 px, JPEG 0.6) and the camera is not sent unless the doctor
 * turns it on; if the link stays weak even so, the console falls back to
 * typed questions (the microphone pauses, with a notice).
 *
 * The silence gate: microphone chunks below a speech level are not sent,
 * after a short hangover (so word endings and short pauses go up), with the
 * last chunk of silence kept so the start of the next word goes up too.
 */
import { useEffect, useRef, useState } from 'react';

interface NetworkInformation extends EventTarget {
    effectiveType?: string;
    saveData?: boolean;
}

const connection = (): NetworkInformation | undefined =>
    typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { connection?: NetworkInformation }).connection;

/** What the browser says about the network: slow (2g, 3g) or the user saves data. */
export const networkIsSlow = (info: { effectiveType?: string; saveData?: boolean } | undefined): boolean =>
    Boolean(info && (info.saveData || ['slow-2g', '2g', '3g'].includes(info.effectiveType ?? '')));

/** A weak link for this long turns low-bandwidth mode on; for this long in it, typed questions only. */
export const WEAK_TO_LOW_MS = 8000;
export const WEAK_TO_TEXT_MS = 20_000;

export const useLowBandwidth = (weak: boolean) => {
    const [slow, setSlow] = useState(() => networkIsSlow(connection()));
    const [choice, setChoice] = useState<boolean | null>(null); // the doctor's, if any
    const [weakLong, setWeakLong] = useState(false);
    const [textOnly, setTextOnly] = useState(false);
    const weakSince = useRef<number | null>(null);

    useEffect(() => {
        const info = connection();
        if (!info) return;
        const changed = () => setSlow(networkIsSlow(info));
        info.addEventListener('change', changed);
        return () => info.removeEventListener('change', changed);
    }, []);

    const low = choice ?? (slow || weakLong);

    useEffect(() => {
        if (!weak) {
            weakSince.current = null;
            setWeakLong(false);
            setTextOnly(false);
            return;
        }
        weakSince.current ??= Date.now();
        const timer = window.setInterval(() => {
            const since = Date.now() - (weakSince.current ?? Date.now());
            if (since >= WEAK_TO_LOW_MS) setWeakLong(true);
            if (since >= WEAK_TO_TEXT_MS && low) setTextOnly(true);
        }, 500);
        return () => window.clearInterval(timer);
    }, [weak, low]);

    return {
        /** Smaller video frames; the camera is not sent unless the doctor turns it on. */
        low,
        /** The link cannot carry audio even in low-bandwidth mode: typed questions only. */
        textOnly: low && textOnly,
        /** Set by the doctor: true/false, or null to follow the network again. */
        choose: setChoice,
        chosen: choice !== null,
    };
};

/** Root mean square of PCM16 samples, 0..1. */
export const rms = (pcm: Int16Array): number => {
    let sum = 0;
    for (let i = 0; i < pcm.length; i++) sum += pcm[i] * pcm[i];
    return pcm.length ? Math.sqrt(sum / pcm.length) / 0x8000 : 0;
};

/** RMS (0..1) a chunk must reach to count as speech. */
export const SPEECH_LEVEL = 0.008;
/** Silence sent after speech, so that word endings and short pauses go up (about 0.8 s). */
export const HANGOVER_CHUNKS = 6;

/**
 * Decides, chunk by chunk, what is sent: speech, the hangover after it, and one chunk of silence
 * before it. `push` returns the chunks to send now (oldest first) and whether the stream just paused.
 */
export class SilenceGate<T> {
    private quietFor = Infinity;
    private held: T | null = null;

    push(chunk: T, rms: number): { send: T[]; paused: boolean } {
        if (rms >= SPEECH_LEVEL) {
            const send = this.held !== null ? [this.held, chunk] : [chunk];
            this.held = null;
            this.quietFor = 0;
            return { send, paused: false };
        }
        this.quietFor += 1;
        if (this.quietFor <= HANGOVER_CHUNKS) return { send: [chunk], paused: false };
        this.held = chunk;
        return { send: [], paused: this.quietFor === HANGOVER_CHUNKS + 1 };
    }

    reset(): void {
        this.quietFor = Infinity;
        this.held = null;
    }
}
