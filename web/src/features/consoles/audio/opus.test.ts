import { describe, expect, it } from 'vitest';
import { packetMicros } from './opus';

describe('packetMicros', () => {
    it('reads one frame, two frames and a code 3 packet of several', () => {
        expect(packetMicros(new Uint8Array([0xd8, 1, 2]))).toBe(20_000); // CELT SWB 20 ms, code 0
        expect(packetMicros(new Uint8Array([0xd9, 1, 2]))).toBe(40_000); // code 1: two frames
        expect(packetMicros(new Uint8Array([0xdb, 0x86, 10]))).toBe(120_000); // code 3: six frames
        expect(packetMicros(new Uint8Array([0x18, 0]))).toBe(60_000); // SILK NB 60 ms
        expect(packetMicros(new Uint8Array([0x83]))).toBe(0); // code 3 without its count
        expect(packetMicros(new Uint8Array([]))).toBe(0);
    });
});
