/**
 * The assistant's voice for a console: one AudioContext, made on the first
 * call of `audio()` (inside the Connect click, so the browser's autoplay rules
 * let it play), the gapless player of playback.ts, and the Opus decoder for
 * binary replies. The handlers are what the live socket calls with the
 * assistant's audio and turn events; `speaking` is whether a reply is playing.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import type { Level } from './level';
import { OpusDecoderStream } from './opus';
import { PcmPlayer } from './playback';

interface AudioEngine {
    context: AudioContext;
    player: PcmPlayer;
}

/** `mark`: writes a test hook (a data attribute) on the console's element. */
export const useAudioOut = (mark: (name: string, value: string | number | boolean) => void, level: Level) => {
    const engine = useRef<AudioEngine | null>(null);
    const decoder = useRef<OpusDecoderStream | null>(null);
    const [speaking, setSpeaking] = useState(false);

    const audio = useCallback((): AudioEngine => {
        if (!engine.current) {
            const context = new AudioContext({ latencyHint: 'interactive' });
            const player = new PcmPlayer(
                context,
                stats => {
                    mark('playbackBuffers', stats.scheduled);
                    mark('playbackMaxGap', stats.maxGapMs);
                    mark('playbackMs', stats.scheduledMs);
                    mark('playing', stats.playing);
                    setSpeaking(stats.playing);
                },
                level,
            );
            engine.current = { context, player };
        }
        const { context } = engine.current;
        if (context.state === 'suspended') {
            // Made without a click (a reload rejoining its consultation): the first click or key lets it play.
            void context.resume();
            const resume = () => void context.resume();
            window.addEventListener('pointerdown', resume, { once: true });
            window.addEventListener('keydown', resume, { once: true });
        }
        return engine.current;
    }, [mark, level]);

    useEffect(
        () => () => {
            engine.current?.player.close();
            void engine.current?.context.close();
            decoder.current?.close();
            engine.current = null;
        },
        [],
    );

    const handlers = useMemo(
        () => ({
            onAudio: (data: string, mimeType?: string) => audio().player.enqueue(data, mimeType),
            onAudioPacket: (packet: ArrayBuffer) => {
                decoder.current ??= new OpusDecoderStream(
                    (samples, rate) => audio().player.enqueueSamples(samples, rate),
                    error => console.warn('opus decoder:', error),
                );
                decoder.current.decode(packet);
            },
            /** Barge-in, or a dropped link: the reply in progress is dropped. */
            stopReply: () => {
                engine.current?.player.stop();
                decoder.current?.reset();
            },
            // The reply ends after its last packets are decoded: samples arriving after the end would
            // reopen it, and the silence until the next reply would count as a gap in it.
            onTurnComplete: () => {
                const pending = decoder.current;
                if (!pending) engine.current?.player.endReply();
                else void pending.drained().then(() => engine.current?.player.endReply());
            },
            /** The consultation ended: silence now. */
            stop: () => engine.current?.player.stop(),
        }),
        [audio],
    );

    return { audio, speaking, ...handlers };
};
