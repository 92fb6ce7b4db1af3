/**
 * The microphone of a console while `enabled` (connected, or the server
 * renewing its connection, and neither muted nor text-only): 16 kHz PCM
 * chunks from microphone.ts, silence held back by the bandwidth gate, sent as
 * Opus packets when the socket carries Opus, as base64 PCM otherwise. When a
 * pause in speech ends a stretch, and when capture stops, the assistant is told
 * not to wait for more speech.
 */
import { useEffect, useRef } from 'react';

import { rms, SilenceGate } from '../live/bandwidth';
import type { AudioFrame } from '../live/liveSocket';
import type { Level } from './level';
import { CaptureError, startMicrophone, CAPTURE_RATE, MIC_FAILED } from './microphone';
import { OpusEncoderStream } from './opus';
import { bytesToBase64, int16ToBytes } from './pcm';

export interface MicStreamOptions {
    enabled: boolean;
    audioMode: 'opus' | 'pcm';
    /** The console's audio (its AudioContext made on demand). */
    audio: () => { context: AudioContext };
    /** Sends one chunk of `ms` milliseconds; false when it was not sent (kept for later or dropped). */
    sendAudio: (frame: AudioFrame, ms: number) => boolean;
    sendAudioEnd: () => void;
    level: Level;
    /** Writes a test hook (a data attribute) on the console's element. */
    mark: (name: string, value: number) => void;
    /** Capture started. */
    onStarted: () => void;
    /** Capture could not start, or the device went away. */
    onFailed: (error: CaptureError) => void;
}

export const useMicStream = ({
    enabled,
    audioMode,
    audio,
    sendAudio,
    sendAudioEnd,
    level,
    mark,
    onStarted,
    onFailed,
}: MicStreamOptions) => {
    const counters = useRef({ audioChunks: 0, silentChunks: 0 });
    // The console's latest handlers, without restarting capture when they change.
    const handlers = useRef({ onStarted, onFailed });
    handlers.current = { onStarted, onFailed };

    useEffect(() => {
        if (!enabled) return;
        let stop: (() => void) | null = null;
        let cancelled = false;
        // Silence is not sent: only speech, its hangover, and the chunk just before it.
        const gate = new SilenceGate<Int16Array>();
        const sent = (ok: boolean) => {
            if (!ok) return;
            counters.current.audioChunks += 1;
            mark('audioChunks', counters.current.audioChunks);
        };
        const encoder =
            audioMode === 'opus'
                ? new OpusEncoderStream(
                      (packet, ms) => sent(sendAudio(packet, ms)),
                      error => console.warn('opus encoder:', error),
                  )
                : null;
        startMicrophone(audio().context, {
            onChunk: pcm => {
                const { send, paused } = gate.push(pcm, rms(pcm));
                for (const chunk of send) {
                    if (encoder) encoder.encode(chunk);
                    else sent(sendAudio(bytesToBase64(int16ToBytes(chunk)), (chunk.length * 1000) / CAPTURE_RATE));
                }
                if (paused) encoder?.flush();
                if (!send.length) {
                    counters.current.silentChunks += 1;
                    mark('silentChunks', counters.current.silentChunks);
                }
                if (paused) sendAudioEnd(); // the assistant should not wait for more speech
            },
            onLevel: value => level.set(value),
            onEnded: () => handlers.current.onFailed(new CaptureError(MIC_FAILED, 'ended')),
        }).then(
            stopper => {
                if (cancelled) stopper();
                else {
                    stop = stopper;
                    handlers.current.onStarted();
                }
            },
            (error: unknown) => {
                if (cancelled) return;
                handlers.current.onFailed(error instanceof CaptureError ? error : new CaptureError(MIC_FAILED));
            },
        );
        return () => {
            cancelled = true;
            stop?.();
            encoder?.close();
            sendAudioEnd(); // the assistant should not wait for more speech
        };
    }, [enabled, audioMode, audio, sendAudio, sendAudioEnd, level, mark]);
};
