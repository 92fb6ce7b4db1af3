import { beforeEach, describe, expect, it, vi } from 'vitest';

import type { Capture } from './store';

// The device's store, in memory: pieces at their offsets, as IndexedDB holds them.
const pieces = new Map<number, Uint8Array>();
let stored: Capture;

vi.mock('./store', () => ({
    updateCapture: async (_id: string, change: (capture: Capture) => Partial<Capture>) => {
        stored = { ...stored, ...change(stored) };
        return stored;
    },
    readAudio: async (_id: string, offset: number, max: number) => {
        const all = new Uint8Array(stored.bytes);
        for (const [at, data] of pieces) all.set(data, at);
        const first = Math.min(...pieces.keys());
        if (offset < first) throw new Error(`byte ${offset} was already forgotten`);
        return all.subarray(offset, Math.min(stored.bytes, offset + max));
    },
    forgetSentAudio: async (_id: string, acknowledged: number) => {
        for (const [at, data] of [...pieces]) if (at + data.length <= acknowledged) pieces.delete(at);
    },
}));

// The server: bytes received so far, and a switch that makes the next PUT fail like a dropped link.
let received: number[] = [];
let failPutAfter = Infinity;
const puts: number[] = [];
let completed: number | null = null;
// The status answer says less than the server has (another tab's upload went on meanwhile).
let staleStatus = false;

const recording = (stale = false) => ({
    id: 'upload-1',
    clientId: stored.id,
    console: 'generic',
    state: completed === null ? 'receiving' : 'processing',
    receivedBytes: stale ? 0 : received.length,
    chunkBytes: 4,
    maxBytes: 1000,
    recordedAt: stored.recordedAt,
    durationMs: null,
    consultationId: null,
    error: null,
    createdAt: stored.recordedAt,
});
const answer = (data: unknown, status = 200) => ({ data, error: undefined, response: { status } });

vi.mock('@/lib/api/client', () => ({
    errorMessage: (_error: unknown, fallback: string) => fallback,
    api: {
        GET: async () => answer(recording(staleStatus)),
        POST: async (path: string, init: { body?: { totalBytes?: number } }) => {
            if (path.endsWith('/complete')) completed = init.body?.totalBytes ?? null;
            return answer(recording(staleStatus), path.endsWith('/complete') ? 200 : 201);
        },
        PUT: async (_path: string, init: { params: { query: { offset: number } }; body: Uint8Array }) => {
            const { offset } = init.params.query;
            puts.push(offset);
            if (puts.length > failPutAfter) throw new TypeError('Failed to fetch');
            if (offset !== received.length)
                return { data: undefined, error: { fields: { offset: String(received.length) } }, response: { status: 409 } };
            received.push(...init.body);
            return answer(recording());
        },
    },
}));

const { uploadCapture } = await import('./upload');

const BYTES = Array.from({ length: 10 }, (_, i) => i + 1);

beforeEach(() => {
    pieces.clear();
    pieces.set(0, Uint8Array.from(BYTES.slice(0, 6)));
    pieces.set(6, Uint8Array.from(BYTES.slice(6)));
    stored = {
        id: 'capture-1',
        console: 'generic',
        consent: true,
        recordedAt: '2026-11-25T10:00:00Z',
        durationMs: 1000,
        mimeType: 'audio/webm;codecs=opus',
        bytes: BYTES.length,
        recording: false,
        state: 'queued',
        sentBytes: 0,
    };
    received = [];
    failPutAfter = Infinity;
    puts.length = 0;
    completed = null;
    staleStatus = false;
});

describe('uploadCapture', () => {
    it('sends the recording in chunks at the offsets the server expects, then completes it', async () => {
        const result = await uploadCapture(stored, () => undefined);
        expect(puts).toEqual([0, 4, 8]);
        expect(received).toEqual(BYTES);
        expect(completed).toBe(BYTES.length);
        expect(result.state).toBe('processing');
        expect(pieces.size).toBe(0); // every byte acknowledged: nothing left on the device
    });

    it('resumes where the server stopped after a dropped upload, forgetting only acknowledged pieces', async () => {
        failPutAfter = 2;
        await expect(uploadCapture(stored, () => undefined)).rejects.toThrow('Failed to fetch');
        expect(received).toEqual(BYTES.slice(0, 8));
        expect(stored.sentBytes).toBe(8);
        // The first piece (bytes 0-5) is acknowledged and gone; the second (6-9) is still needed.
        expect([...pieces.keys()]).toEqual([6]);

        failPutAfter = Infinity;
        puts.length = 0;
        await uploadCapture(stored, () => undefined);
        expect(puts).toEqual([8]);
        expect(received).toEqual(BYTES);
        expect(completed).toBe(BYTES.length);
    });

    it('starts from the bytes the server has', async () => {
        received = BYTES.slice(0, 4);
        await uploadCapture(stored, () => undefined);
        expect(puts).toEqual([4, 8]);
        expect(received).toEqual(BYTES);
    });

    it('follows the offset of a 409 when the server has more than its status said', async () => {
        received = BYTES.slice(0, 4);
        staleStatus = true;
        await uploadCapture(stored, () => undefined);
        expect(puts).toEqual([0, 4, 8]);
        expect(received).toEqual(BYTES);
    });

    it('uploads a recording in progress as far as it goes, without completing it', async () => {
        stored = { ...stored, recording: true };
        const result = await uploadCapture(stored, () => undefined);
        expect(received).toEqual(BYTES);
        expect(completed).toBeNull();
        expect(result.state).toBe('receiving');
    });
});
