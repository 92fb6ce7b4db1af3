// Writes the console's sound effects to web/public/sounds/*.wav (run once:
// `node src/features/consoles/audio/make-sounds.mjs` from web/). Synthesised
// here, so no third-party audio is shipped: short sine notes with a soft
// attack and an exponential release, 16-bit mono PCM at 22.05 kHz.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const RATE = 22_050;
const out = path.resolve(import.meta.dirname, '../../../../public/sounds');

const note = (frequency, seconds, gain = 0.5) => {
    const count = Math.round(seconds * RATE);
    const samples = new Float32Array(count);
    for (let i = 0; i < count; i++) {
        const t = i / RATE;
        const attack = Math.min(1, t / 0.01);
        const release = Math.exp(-4 * (t / seconds));
        // A little second harmonic makes it a chime rather than a test tone.
        const wave = Math.sin(2 * Math.PI * frequency * t) + 0.25 * Math.sin(4 * Math.PI * frequency * t);
        samples[i] = gain * attack * release * wave * 0.8;
    }
    return samples;
};

const join = (...parts) => {
    const total = parts.reduce((sum, part) => sum + part.length, 0);
    const joined = new Float32Array(total);
    let offset = 0;
    for (const part of parts) {
        joined.set(part, offset);
        offset += part.length;
    }
    return joined;
};

const wav = samples => {
    const data = Buffer.alloc(samples.length * 2);
    samples.forEach((sample, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, sample)) * 0x7fff), i * 2));
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + data.length, 4);
    header.write('WAVE', 8);
    header.write('fmt ', 12);
    header.writeUInt32LE(16, 16); // PCM format chunk size
    header.writeUInt16LE(1, 20); // PCM
    header.writeUInt16LE(1, 22); // mono
    header.writeUInt32LE(RATE, 24);
    header.writeUInt32LE(RATE * 2, 28); // byte rate
    header.writeUInt16LE(2, 32); // block align
    header.writeUInt16LE(16, 34); // bits per sample
    header.write('data', 36);
    header.writeUInt32LE(data.length, 40);
    return Buffer.concat([header, data]);
};

const sounds = {
    connect: join(note(659.25, 0.11), note(987.77, 0.2)), // E5 then B5: rising
    disconnect: join(note(987.77, 0.11), note(659.25, 0.2)), // falling
    error: join(note(329.63, 0.14, 0.45), note(246.94, 0.24, 0.45)), // low, falling
};

mkdirSync(out, { recursive: true });
for (const [name, samples] of Object.entries(sounds)) {
    const file = path.join(out, `${name}.wav`);
    writeFileSync(file, wav(samples));
    console.log(`${path.relative(process.cwd(), file)}: ${(samples.length / RATE).toFixed(2)} s`);
}
