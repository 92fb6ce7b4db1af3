/**
 * The microphone's AudioWorklet processor (runs on the audio thread).
 *
 * It receives the microphone at the context's native rate, converts it to
 * 16 kHz 16-bit PCM (resample.ts) and posts whole chunks of 2048 samples
 * (128 ms, about 8 a second, spec §9) to the page with their RMS level for
 * the microphone meter. The chunk's buffer is transferred, not copied.
 * Bundled on its own by Vite (`?worker&url`) and loaded with addModule.
 */
import { Resampler, toInt16 } from './resample';

// The AudioWorkletGlobalScope is not in TypeScript's DOM library.
declare const sampleRate: number;
declare class AudioWorkletProcessor {
    readonly port: MessagePort;
    constructor(options?: unknown);
}
declare function registerProcessor(name: string, processor: unknown): void;

interface CaptureOptions {
    processorOptions?: { targetRate?: number; chunkSamples?: number };
}

class CaptureProcessor extends AudioWorkletProcessor {
    private readonly size: number;
    private chunk: Int16Array;
    private filled = 0;
    private squares = 0;
    private readonly resampler: Resampler;

    constructor(options: CaptureOptions) {
        super(options);
        const targetRate = options.processorOptions?.targetRate ?? 16_000;
        const chunkSamples = options.processorOptions?.chunkSamples ?? 2048;
        this.size = chunkSamples;
        this.chunk = new Int16Array(chunkSamples);
        this.resampler = new Resampler(sampleRate, targetRate, sample => this.add(sample));
    }

    private add(sample: number): void {
        this.chunk[this.filled++] = toInt16(sample);
        this.squares += sample * sample;
        if (this.filled === this.size) {
            const level = Math.sqrt(this.squares / this.size);
            const buffer = this.chunk.buffer;
            this.port.postMessage({ pcm: buffer, level }, [buffer]);
            // Transferring detaches the old array (its length becomes 0): a new one for the next chunk.
            this.chunk = new Int16Array(this.size);
            this.filled = 0;
            this.squares = 0;
        }
    }

    process(inputs: Float32Array[][]): boolean {
        // Mono: the first channel (getUserMedia is asked for one channel).
        const channel = inputs[0]?.[0];
        if (channel && channel.length) this.resampler.push(channel);
        return true; // keep running until the node is disconnected
    }
}

registerProcessor('cara-capture', CaptureProcessor);
