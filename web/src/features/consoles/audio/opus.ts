/**
 * Opus both ways with WebCodecs, a tenth of the bandwidth of base64 PCM in JSON
 * (server: platform/cara/live/opus.py).
 *
 * - `OpusEncoderStream`: the microphone's 16 kHz PCM16 chunks -> raw Opus
 *   packets of 120 ms at 20 kb/s (about 8 a second, like the PCM chunks,
 *   so the socket's per-frame overhead stays small), one binary frame each;
 * - `OpusDecoderStream`: Cara's Opus packets (24 kHz, 20 ms frames, several
 *   to a packet: up to 120 ms, one binary frame per chunk the service sent)
 *   -> float samples for the gapless player.
 *
 * `opusSupported()` says whether this browser can do both; without it the
 * console keeps today's base64 PCM in JSON.
 */
export const UP_RATE = 16_000;
export const DOWN_RATE = 24_000;
export const UP_BITRATE = 20_000;
export const UP_FRAME_MS = 120;

const upConfig = (): AudioEncoderConfig => ({
    codec: 'opus',
    sampleRate: UP_RATE,
    numberOfChannels: 1,
    bitrate: UP_BITRATE,
    opus: { frameDuration: UP_FRAME_MS * 1000, application: 'voip' },
} as AudioEncoderConfig);

const downConfig = (): AudioDecoderConfig => ({ codec: 'opus', sampleRate: DOWN_RATE, numberOfChannels: 1 });

export const opusSupported = async (): Promise<boolean> => {
    try {
        if (typeof AudioEncoder === 'undefined' || typeof AudioDecoder === 'undefined') return false;
        const [up, down] = await Promise.all([
            AudioEncoder.isConfigSupported(upConfig()),
            AudioDecoder.isConfigSupported(downConfig()),
        ]);
        return Boolean(up.supported && down.supported);
    } catch {
        return false;
    }
};

/** Frame length in µs of each Opus configuration (RFC 6716 §3.1): SILK, hybrid, CELT. */
const FRAME_MICROS = [
    ...[0, 1, 2].flatMap(() => [10_000, 20_000, 40_000, 60_000]),
    ...[0, 1].flatMap(() => [10_000, 20_000]),
    ...[0, 1, 2, 3].flatMap(() => [2_500, 5_000, 10_000, 20_000]),
];

/** The audio one Opus packet holds (its TOC byte and, for code 3, its frame count), in µs. */
export const packetMicros = (packet: Uint8Array): number => {
    if (packet.length === 0) return 0;
    const code = packet[0] & 3;
    const frames = code === 0 ? 1 : code < 3 ? 2 : packet.length > 1 ? packet[1] & 0x3f : 0;
    return frames * FRAME_MICROS[packet[0] >> 3];
};

export class OpusEncoderStream {
    private readonly encoder: AudioEncoder;
    private samples = 0; // timestamps count the audio encoded, not the silence skipped

    constructor(onPacket: (packet: Uint8Array, ms: number) => void, onError: (error: unknown) => void) {
        this.encoder = new AudioEncoder({
            output: chunk => {
                const packet = new Uint8Array(chunk.byteLength);
                chunk.copyTo(packet);
                onPacket(packet, (chunk.duration ?? UP_FRAME_MS * 1000) / 1000);
            },
            error: onError,
        });
        this.encoder.configure(upConfig());
    }

    encode(pcm: Int16Array): void {
        if (this.encoder.state !== 'configured') return;
        const data = new AudioData({
            format: 's16',
            sampleRate: UP_RATE,
            numberOfFrames: pcm.length,
            numberOfChannels: 1,
            timestamp: Math.round((this.samples * 1_000_000) / UP_RATE),
            data: pcm as Int16Array<ArrayBuffer>, // the microphone's chunks own plain buffers
        });
        this.samples += pcm.length;
        this.encoder.encode(data);
        data.close();
    }

    /** Sends what the encoder still holds (a pause in speech). */
    flush(): void {
        if (this.encoder.state === 'configured') void this.encoder.flush().catch(() => undefined);
    }

    close(): void {
        if (this.encoder.state !== 'closed') this.encoder.close();
    }
}

export class OpusDecoderStream {
    private decoder: AudioDecoder;
    private timestamp = 0;

    constructor(
        private readonly onSamples: (samples: Float32Array<ArrayBuffer>, rate: number) => void,
        private readonly onError: (error: unknown) => void,
    ) {
        this.decoder = this.make();
    }

    private make(): AudioDecoder {
        const decoder = new AudioDecoder({
            output: data => {
                const samples = new Float32Array(data.numberOfFrames);
                data.copyTo(samples, { planeIndex: 0, format: 'f32-planar' });
                const rate = data.sampleRate;
                data.close();
                this.onSamples(samples, rate);
            },
            error: this.onError,
        });
        decoder.configure(downConfig());
        return decoder;
    }

    decode(packet: ArrayBuffer): void {
        if (this.decoder.state !== 'configured') this.decoder = this.make();
        this.decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: this.timestamp, data: packet }));
        this.timestamp += packetMicros(new Uint8Array(packet));
    }

    /** Resolves once every packet given so far has come out as samples (or been dropped). */
    async drained(): Promise<void> {
        if (this.decoder.state !== 'configured') return;
        await this.decoder.flush().catch(() => undefined);
    }

    /** Barge-in: what is still being decoded is dropped. */
    reset(): void {
        if (this.decoder.state === 'configured') {
            this.decoder.reset();
            this.decoder.configure(downConfig());
        }
    }

    close(): void {
        if (this.decoder.state !== 'closed') this.decoder.close();
    }
}
