/**
 * A large set of DICOM files goes to the server in parts (batches of a few
 * megabytes), one request each, so a dropped link costs one part, not the
 * whole study: a part that fails on the network is sent again after a pause,
 * and after the last try the upload stops where it is and can be resumed from
 * that part. A refusal (a file that is not DICOM, a limit) stops it for good.
 */
import type { Result } from '@/lib/api/result';

export const BATCH_BYTES = 8 * 1024 * 1024;
export const BATCH_FILES = 50;
export const RETRIES = 3;

interface Sized {
    size: number;
}

/** Consecutive parts of at most `maxBytes` and `maxFiles` (a larger file is a part of its own). */
export const planBatches = <T extends Sized>(files: readonly T[], maxBytes = BATCH_BYTES, maxFiles = BATCH_FILES) => {
    const batches: T[][] = [];
    let current: T[] = [];
    let bytes = 0;
    for (const file of files) {
        if (current.length && (bytes + file.size > maxBytes || current.length >= maxFiles)) {
            batches.push(current);
            current = [];
            bytes = 0;
        }
        current.push(file);
        bytes += file.size;
    }
    if (current.length) batches.push(current);
    return batches;
};

/** A failure worth sending the same part again for: no answer, or the server briefly unable. */
export const retryable = (status: number | undefined) => status === undefined || status === 0 || status >= 500;

export interface BatchRun<T> {
    /** Parts sent and stored, counted from the start of the whole upload. */
    done: number;
    /** The answer of every stored part, in order. */
    stored: T[];
    /** Set when the upload stopped: the failure, and whether resuming may succeed. */
    stopped?: { message: string; status?: number; resumable: boolean };
}

/**
 * Sends the parts from `from` on, each up to RETRIES times on a network failure
 * (`wait` between tries), and reports each part's progress as a fraction of all
 * the bytes.
 */
export const sendBatches = async <F extends Sized, T>(
    batches: readonly F[][],
    send: (batch: readonly F[], onProgress: (fraction: number) => void) => Promise<Result<T>>,
    onProgress: (fraction: number) => void,
    { from = 0, wait = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms)) } = {},
): Promise<BatchRun<T>> => {
    const sizes = batches.map(batch => batch.reduce((sum, file) => sum + file.size, 0));
    const total = sizes.reduce((sum, size) => sum + size, 0) || 1;
    const stored: T[] = [];
    for (let index = from; index < batches.length; index += 1) {
        const before = sizes.slice(0, index).reduce((sum, size) => sum + size, 0);
        let attempt = 0;
        for (;;) {
            const result = await send(batches[index], fraction => onProgress((before + fraction * sizes[index]) / total));
            if (result.ok) {
                stored.push(result.data);
                onProgress((before + sizes[index]) / total);
                break;
            }
            attempt += 1;
            if (!retryable(result.status)) {
                return { done: index, stored, stopped: { message: result.message, status: result.status, resumable: false } };
            }
            if (attempt >= RETRIES) {
                return { done: index, stored, stopped: { message: result.message, status: result.status, resumable: true } };
            }
            await wait(1000 * 2 ** (attempt - 1));
        }
    }
    return { done: batches.length, stored };
};

/** The first chosen file that cannot be DICOM (no "DICM" at byte 128) and is not a zip; null if none. */
export const firstNotDicom = async (files: readonly File[]): Promise<File | null> => {
    for (const file of files) {
        const head = new Uint8Array(await file.slice(0, 132).arrayBuffer());
        const zip = head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
        const dicom = head.length === 132 && String.fromCharCode(...head.subarray(128, 132)) === 'DICM';
        if (!zip && !dicom) return file;
    }
    return null;
};
