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
// The server deleted the upload (unfinished for a day): its status is 404 until it is made again.
let forgotten = false;
// The next PUT meets a full storage quota.
let storageFull = false;

const recording = (stale = false) => ({
    id: 'upload-1',
    clientId: stored.id,
    console: 'generic',
    state: completed === null ? 'receiving' : 'processing',
    receivedBytes: stale ? 0 : received.length,
    chunkBytes: 4,
    minChunkBytes: 2,
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
        GET: async () =>
            forgotten ? { data: undefined, error: undefined, response: { status: 404 } } : answer(recording(staleStatus)),
        POST: async (path: string, init: { body?: { totalBytes?: number } }) => {
            if (forgotten) {
                forgotten = false;
                received = [];
            }
            if (path.endsWith('/complete')) completed = init.body?.totalBytes ?? null;
            return answer(recording(staleStatus), path.endsWith('/complete') ? 200 : 201);
        },
        PUT: async (_path: string, init: { params: { query: { offset: number } }; body: Uint8Array }) => {
            const { offset } = init.params.query;
            puts.push(offset);
            if (puts.length > failPutAfter) throw new TypeError('Failed to fetch');
            if (storageFull)
                return { data: undefined, error: { message: 'storage full' }, response: { status: 507 } };
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
    forgotten = false;
    storageFull = false;
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

    it('resumes where the server stopped after a dropped upload, keeping every piece until it is complete', async () => {
        failPutAfter = 2;
        await expect(uploadCapture(stored, () => undefined)).rejects.toThrow('Failed to fetch');
        expect(received).toEqual(BYTES.slice(0, 8));
        expect(stored.sentBytes).toBe(8);
        // Acknowledged pieces stay too: the server may yet delete an upload left unfinished.
        expect([...pieces.keys()]).toEqual([0, 6]);

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

    it('uploads a recording in progress in whole chunks only, without completing it', async () => {
        stored = { ...stored, recording: true };
        const result = await uploadCapture(stored, () => undefined);
        // 10 bytes in chunks of 4: the short rest waits for the recording to stop.
        expect(received).toEqual(BYTES.slice(0, 8));
        expect(completed).toBeNull();
        expect(result.state).toBe('receiving');
        stored = { ...stored, recording: false };
        await uploadCapture(stored, () => undefined);
        expect(received).toEqual(BYTES);
        expect(completed).toBe(BYTES.length);
    });

    it('sends everything again when the server deleted an upload left unfinished', async () => {
        failPutAfter = 2;
        await expect(uploadCapture(stored, () => undefined)).rejects.toThrow('Failed to fetch');
        stored = { ...stored, uploadId: 'upload-1' };
        forgotten = true;
        failPutAfter = Infinity;
        puts.length = 0;
        await uploadCapture(stored, () => undefined);
        expect(puts).toEqual([0, 4, 8]);
        expect(received).toEqual(BYTES);
        expect(completed).toBe(BYTES.length);
        expect(pieces.size).toBe(0);
    });

    it('waits, keeping the recording, when the storage quota is reached', async () => {
        storageFull = true;
        const refused = await uploadCapture(stored, () => undefined).catch((error: unknown) => error);
        expect(refused).toMatchObject({ final: false });
        expect([...pieces.keys()]).toEqual([0, 6]);
        expect(completed).toBeNull();
    });
});
