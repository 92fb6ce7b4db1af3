/** Base64 and PCM conversions for the live socket's audio frames (PCM16 little-endian, mono). */

export const bytesToBase64 = (bytes: Uint8Array): string => {
    // btoa takes a binary string; build it in slices so a large buffer cannot overflow the call stack.
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
        binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
};

export const base64ToBytes = (data: string): Uint8Array => {
    const binary = atob(data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
};

/** PCM16LE bytes as float samples (-1..1); read with DataView so the host's byte order does not matter. */
export const pcm16ToFloat32 = (bytes: Uint8Array): Float32Array<ArrayBuffer> => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const samples = new Float32Array(bytes.byteLength >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true) / 0x8000;
    return samples;
};

/** Int16 samples as little-endian bytes (a copy only on big-endian hosts, which browsers practically never are). */
export const int16ToBytes = (samples: Int16Array): Uint8Array => {
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) {
        return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
    }
    const bytes = new Uint8Array(samples.length * 2);
    const view = new DataView(bytes.buffer);
    samples.forEach((sample, i) => view.setInt16(i * 2, sample, true));
    return bytes;
};

/** The sample rate of a mime type such as 'audio/pcm;rate=24000' (the Live output rate otherwise). */
export const rateOf = (mimeType: string | undefined, fallback = 24_000): number => {
    const match = /rate=(\d+)/.exec(mimeType ?? '');
    const rate = match ? Number(match[1]) : fallback;
    return rate >= 3000 && rate <= 384_000 ? rate : fallback;
};
