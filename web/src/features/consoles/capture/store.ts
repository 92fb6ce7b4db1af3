/**
 * Recordings kept on this device until the server has them (IndexedDB, so
 * they survive a reload or a closed tab). A capture's audio is stored as the
 * recorder hands it over, each piece at its byte offset in the recording;
 * the pieces are deleted once the whole upload is complete (the server may
 * delete an upload left unfinished, which is then sent again from them).
 */

import type { PatientReference } from '../consent/api';

export type CaptureState = 'recording' | 'queued' | 'uploading' | 'processing' | 'waiting' | 'done' | 'failed';

export interface Capture {
    /** The browser's id of the capture, also the upload's `clientId` on the server. */
    id: string;
    console: string;
    consent: boolean;
    /** ISO time the recording started. */
    recordedAt: string;
    durationMs: number;
    mimeType: string;
    /** Bytes recorded so far. */
    bytes: number;
    /** The recorder is writing to it (in this tab; after a reload such a capture is simply stopped). */
    recording: boolean;
    state: CaptureState;
    uploadId?: string;
    /** Bytes the server acknowledged. */
    sentBytes: number;
    consultationId?: string;
    error?: string;
    /** Who it is about, given at the consent step; sent with the upload, never to the AI model. */
    patientReference?: PatientReference;
    /** The interface's language when it was recorded: the language spoken, for speech recognition. */
    language?: string;
}

interface Piece {
    captureId: string;
    offset: number;
    data: ArrayBuffer;
}

const DB_NAME = 'cara-captures';
const CAPTURES = 'captures';
const PIECES = 'pieces';

let opened: Promise<IDBDatabase> | null = null;

const request = <T>(req: IDBRequest<T>): Promise<T> =>
    new Promise((resolve, reject) => {
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
    });

const done = (tx: IDBTransaction): Promise<void> =>
    new Promise((resolve, reject) => {
        tx.oncomplete = () => resolve();
        tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
        tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    });

export const captureStorageAvailable = (): boolean => typeof indexedDB !== 'undefined';

const db = (): Promise<IDBDatabase> => {
    opened ??= new Promise((resolve, reject) => {
        const open = indexedDB.open(DB_NAME, 1);
        open.onupgradeneeded = () => {
            const database = open.result;
            database.createObjectStore(CAPTURES, { keyPath: 'id' });
            database.createObjectStore(PIECES, { keyPath: ['captureId', 'offset'] });
        };
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => {
            opened = null;
            reject(open.error ?? new Error('IndexedDB unavailable'));
        };
    });
    return opened;
};

const range = (captureId: string) => IDBKeyRange.bound([captureId, 0], [captureId, Number.MAX_SAFE_INTEGER]);

export const listCaptures = async (): Promise<Capture[]> => {
    const tx = (await db()).transaction(CAPTURES, 'readonly');
    const all = await request(tx.objectStore(CAPTURES).getAll() as IDBRequest<Capture[]>);
    return all.sort((a, b) => b.recordedAt.localeCompare(a.recordedAt));
};

export const saveCapture = async (capture: Capture): Promise<void> => {
    const tx = (await db()).transaction(CAPTURES, 'readwrite');
    tx.objectStore(CAPTURES).put(capture);
    await done(tx);
};

/** Changes a stored capture (read and written in one transaction); undefined when it is gone. */
export const updateCapture = async (
    id: string,
    change: (capture: Capture) => Partial<Capture>,
): Promise<Capture | undefined> => {
    const tx = (await db()).transaction(CAPTURES, 'readwrite');
    const store = tx.objectStore(CAPTURES);
    const current = await request(store.get(id) as IDBRequest<Capture | undefined>);
    let next: Capture | undefined;
    if (current) {
        next = { ...current, ...change(current) };
        store.put(next);
    }
    await done(tx);
    return next;
};

/** Appends recorded audio at the capture's end, with its new size and duration, in one transaction. */
export const appendAudio = async (id: string, data: ArrayBuffer, durationMs: number): Promise<Capture | undefined> => {
    const tx = (await db()).transaction([CAPTURES, PIECES], 'readwrite');
    const captures = tx.objectStore(CAPTURES);
    const current = await request(captures.get(id) as IDBRequest<Capture | undefined>);
    let next: Capture | undefined;
    if (current && data.byteLength > 0) {
        tx.objectStore(PIECES).put({ captureId: id, offset: current.bytes, data } satisfies Piece);
        next = { ...current, bytes: current.bytes + data.byteLength, durationMs };
        captures.put(next);
    } else if (current) {
        next = { ...current, durationMs };
        captures.put(next);
    }
    await done(tx);
    return next;
};

/** Up to `max` bytes of the recording from `offset` (fewer at its end). */
export const readAudio = async (id: string, offset: number, max: number): Promise<Uint8Array> => {
    const tx = (await db()).transaction(PIECES, 'readonly');
    const pieces = await request(tx.objectStore(PIECES).getAll(range(id)) as IDBRequest<Piece[]>);
    const out = new Uint8Array(max);
    let length = 0;
    for (const piece of pieces.sort((a, b) => a.offset - b.offset)) {
        const end = piece.offset + piece.data.byteLength;
        if (end <= offset + length) continue;
        if (piece.offset > offset + length) break; // a hole: nothing is sent past it
        const from = offset + length - piece.offset;
        const take = Math.min(piece.data.byteLength - from, max - length);
        out.set(new Uint8Array(piece.data, from, take), length);
        length += take;
        if (length === max) break;
    }
    return out.subarray(0, length);
};

/** Deletes the pieces whose every byte the server acknowledged. */
export const forgetSentAudio = async (id: string, acknowledged: number): Promise<void> => {
    const tx = (await db()).transaction(PIECES, 'readwrite');
    const store = tx.objectStore(PIECES);
    const pieces = await request(store.getAll(range(id)) as IDBRequest<Piece[]>);
    for (const piece of pieces) {
        if (piece.offset + piece.data.byteLength <= acknowledged) store.delete([id, piece.offset]);
    }
    await done(tx);
};

export const deleteCapture = async (id: string): Promise<void> => {
    const tx = (await db()).transaction([CAPTURES, PIECES], 'readwrite');
    tx.objectStore(CAPTURES).delete(id);
    tx.objectStore(PIECES).delete(range(id));
    await done(tx);
};
