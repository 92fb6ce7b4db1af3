/**
 * Gapless playback of the assistant's voice (PCM16, 24 kHz, spec §9).
 *
 * Each chunk becomes an AudioBuffer scheduled to start exactly where the
 * previous one ends on the AudioContext's clock, so there are no gaps or
 * clicks between chunks; after silence, playback starts 0.1 s ahead so the
 * first chunks of a reply cannot underrun. `stop()` (barge-in, `interrupted`)
 * fades out over 0.1 s and drops everything still scheduled. The context
 * resamples 24 kHz buffers to the device's rate.
 */
import type { Level } from './level';
import { base64ToBytes, pcm16ToFloat32, rateOf } from './pcm';

export const INITIAL_BUFFER_SECONDS = 0.1;
export const FADE_OUT_SECONDS = 0.1;
const REPLY_TAIL_SECONDS = 0.5;
const METER_INTERVAL_MS = 25;
const METER_DECAY = 0.7;

export interface PlaybackStats {
    /** Buffers scheduled since the player was made (tests read it from the console's data attributes). */
    scheduled: number;
    playing: boolean;
    /** The longest silence inside one reply (ms): a chunk that arrived after the previous one ended. */
    maxGapMs: number;
    /** Milliseconds of audio scheduled since the player was made. */
    scheduledMs: number;
}

export class PcmPlayer {
    private output: GainNode;
    private readonly analyser: AnalyserNode;
    private readonly sources = new Set<AudioBufferSourceNode>();
    private nextStart = 0;
    private scheduled = 0;
    private meterTimer: number | undefined;
    private readonly meterData: Float32Array<ArrayBuffer>;
    private volume = 0;
    // A reply is being played (chunks since the last turn end or stop): a late chunk is a gap in it.
    private inReply = false;
    private endedAt = -Infinity; // context time of the last turn end
    private maxGapMs = 0;
    private scheduledMs = 0;

    constructor(
        private readonly context: AudioContext,
        private readonly onChange: (stats: PlaybackStats) => void = () => undefined,
        private readonly level?: Level,
    ) {
        this.analyser = context.createAnalyser();
        this.analyser.fftSize = 512;
        this.meterData = new Float32Array(this.analyser.fftSize);
        this.analyser.connect(context.destination);
        this.output = this.newOutput();
    }

    private newOutput(): GainNode {
        const gain = this.context.createGain();
        gain.connect(this.analyser);
        return gain;
    }

    get playing(): boolean {
        return this.sources.size > 0;
    }

    /** Queue one chunk of base64 PCM16LE (mime type like 'audio/pcm;rate=24000'). */
    enqueue(data: string, mimeType?: string): void {
        this.enqueueSamples(pcm16ToFloat32(base64ToBytes(data)), rateOf(mimeType));
    }

    /** Queue decoded samples (-1..1) at `rate` (Opus replies). */
    enqueueSamples(samples: Float32Array<ArrayBuffer>, rate: number): void {
        if (!samples.length) return;
        const buffer = this.context.createBuffer(1, samples.length, rate);
        buffer.copyToChannel(samples, 0);
        const source = this.context.createBufferSource();
        source.buffer = buffer;
        source.connect(this.output);
        const now = this.context.currentTime;
        // Nothing queued (or an underrun): leave a small head start instead of starting in the past.
        if (this.nextStart < now) {
            const start = now + INITIAL_BUFFER_SECONDS;
            if (this.inReply) this.maxGapMs = Math.max(this.maxGapMs, Math.round((start - this.nextStart) * 1000));
            this.nextStart = start;
        }
        // The tail of a reply can come just after its turn end (an encoder's last packet): it does not
        // open a new reply, so the silence before the next one is not counted as a gap.
        if (now - this.endedAt > REPLY_TAIL_SECONDS) this.inReply = true;
        this.scheduledMs += buffer.duration * 1000;
        source.start(this.nextStart);
        this.nextStart += buffer.duration;
        this.sources.add(source);
        source.onended = () => {
            this.sources.delete(source);
            if (!this.sources.size) this.changed();
        };
        this.scheduled++;
        this.startMeter();
        this.changed();
    }

    /** The reply is complete: silence until the next chunk is not a gap. */
    endReply(): void {
        this.inReply = false;
        this.endedAt = this.context.currentTime;
    }

    /** Barge-in: fade out over 0.1 s and drop every scheduled chunk. */
    stop(): void {
        this.inReply = false;
        if (!this.sources.size) {
            this.nextStart = 0;
            return;
        }
        const now = this.context.currentTime;
        const fading = this.output;
        fading.gain.cancelScheduledValues(now);
        fading.gain.setValueAtTime(fading.gain.value, now);
        fading.gain.linearRampToValueAtTime(0, now + FADE_OUT_SECONDS);
        for (const source of this.sources) {
            source.onended = null;
            try {
                source.stop(now + FADE_OUT_SECONDS);
            } catch {
                // never started: nothing to stop
            }
        }
        this.sources.clear();
        // The next reply plays through a fresh gain node; the faded one is dropped once silent.
        this.output = this.newOutput();
        window.setTimeout(() => fading.disconnect(), (FADE_OUT_SECONDS + 0.1) * 1000);
        this.nextStart = 0;
        this.changed();
    }

    close(): void {
        this.stop();
        window.clearInterval(this.meterTimer);
        this.meterTimer = undefined;
        this.level?.set(0);
        this.analyser.disconnect();
    }

    private changed(): void {
        this.onChange({
            scheduled: this.scheduled,
            playing: this.playing,
            maxGapMs: this.maxGapMs,
            scheduledMs: Math.round(this.scheduledMs),
        });
    }

    // Output level for the volume pulse: RMS every 25 ms, falling back by a factor 0.7 (spec §9).
    private startMeter(): void {
        if (!this.level || this.meterTimer !== undefined) return;
        this.meterTimer = window.setInterval(() => {
            this.analyser.getFloatTimeDomainData(this.meterData);
            let sum = 0;
            for (const sample of this.meterData) sum += sample * sample;
            const rms = Math.sqrt(sum / this.meterData.length);
            this.volume = Math.max(Math.min(1, rms * 4), this.volume * METER_DECAY);
            if (this.volume < 0.01 && !this.playing) {
                this.volume = 0;
                window.clearInterval(this.meterTimer);
                this.meterTimer = undefined;
            }
            this.level?.set(this.volume);
        }, METER_INTERVAL_MS);
    }
}
