/**
 * Streaming conversion of the microphone's native-rate float samples to
 * 16-bit PCM at the rate the Live service expects (16 kHz).
 *
 * Browsers capture at the device's rate (44.1 or 48 kHz, sometimes 8 or
 * 24 kHz for headsets) and Firefox refuses to connect a microphone to an
 * AudioContext of another rate, so the rate cannot be forced on the context:
 * it is converted here, sample by sample, keeping state across the
 * 128-frame blocks an AudioWorklet receives.
 *
 * Down-sampling averages the input over each output sample's interval (a box
 * filter with exact fractional weights): cheap, continuous across blocks, and
 * it removes most of the energy that would alias into the speech band.
 * Up-sampling (rare) interpolates linearly.
 */
export class Resampler {
    private readonly ratio: number;
    // Down-sampling: the running weighted sum of the current output interval.
    private acc = 0;
    private weight = 0;
    // Up-sampling: the previous input sample and the position between it and the next.
    private previous = 0;
    private position = 0;

    constructor(
        inputRate: number,
        outputRate: number,
        private readonly emit: (sample: number) => void,
    ) {
        if (!(inputRate > 0) || !(outputRate > 0)) throw new RangeError('sample rates must be positive');
        this.ratio = inputRate / outputRate;
    }

    push(block: Float32Array): void {
        if (this.ratio >= 1) this.down(block);
        else this.up(block);
    }

    private down(block: Float32Array): void {
        const ratio = this.ratio;
        for (let i = 0; i < block.length; i++) {
            const x = block[i];
            let remaining = 1; // the part of this input sample not yet given to an output sample
            while (remaining > 0) {
                const take = Math.min(remaining, ratio - this.weight);
                this.acc += x * take;
                this.weight += take;
                remaining -= take;
                // The epsilon absorbs floating-point drift of fractional ratios (44.1k / 16k).
                if (this.weight >= ratio - 1e-9) {
                    this.emit(this.acc / ratio);
                    this.acc = 0;
                    this.weight = 0;
                }
            }
        }
    }

    private up(block: Float32Array): void {
        for (let i = 0; i < block.length; i++) {
            const x = block[i];
            while (this.position < 1) {
                this.emit(this.previous + (x - this.previous) * this.position);
                this.position += this.ratio;
            }
            this.position -= 1;
            this.previous = x;
        }
    }
}

/** A float sample (-1..1) as a signed 16-bit integer, clipped. */
export const toInt16 = (sample: number): number => {
    const clipped = sample < -1 ? -1 : sample > 1 ? 1 : sample;
    return clipped < 0 ? Math.round(clipped * 0x8000) : Math.round(clipped * 0x7fff);
};
