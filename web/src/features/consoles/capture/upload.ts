/**
 * Uploading a capture in resumable chunks (/api/recordings): the upload is
 * created under the capture's own id (so a retried create finds it), its
 * status says which byte comes next, each chunk goes at that offset, and a
 * 409 answers with the offset the server expects. Pieces stay on the device
 * until the whole upload is complete: the server deletes an upload nobody
 * finished within a day, and it is then made again from these pieces. A
 * capture still being recorded is sent in whole chunks only (the server takes
 * a short chunk as the last) and completed once it stops. A storage limit
 * reached (429, 507) waits like a lost connection, with the server's reason.
 */
import { api, errorMessage } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';
import { forgetSentAudio, readAudio, updateCapture, type Capture } from './store';

export type Recording = components['schemas']['RecordingOut'];

/** Small enough for a 3G uplink to finish one in a few seconds. */
const MAX_CHUNK = 128 * 1024;

export class UploadError extends Error {
    /** The server refused the recording itself (it will not get better by retrying the upload). */
    readonly final: boolean;
    constructor(message: string, final = false) {
        super(message);
        this.final = final;
    }
}

export const NETWORK = 'No connection: the recording stays on this device and is sent when the connection returns.';

const ensureUpload = async (capture: Capture): Promise<Recording> => {
    if (capture.uploadId) {
        const { data, response } = await api.GET('/api/recordings/{recording_id}', {
            params: { path: { recording_id: capture.uploadId } },
        });
        if (data) return data;
        if (response.status !== 404) throw new UploadError(NETWORK);
    }
    const { data, error, response } = await api.POST('/api/recordings', {
        body: {
            clientId: capture.id,
            console: capture.console,
            consent: capture.consent,
            recordedAt: capture.recordedAt,
            durationMs: capture.durationMs,
            mimeType: capture.mimeType,
            patientReference: capture.patientReference ?? null,
            language: capture.language ?? null,
        },
    });
    if (data) return data;
    if (response.status === 429 || response.status === 507) throw new UploadError(errorMessage(error, NETWORK));
    if (response.status >= 400 && response.status < 500)
        throw new UploadError(errorMessage(error, 'The recording was refused.'), true);
    throw new UploadError(NETWORK);
};

const putChunk = async (uploadId: string, offset: number, bytes: Uint8Array): Promise<number> => {
    const { data, error, response } = await api.PUT('/api/recordings/{recording_id}/chunks', {
        params: { path: { recording_id: uploadId }, query: { offset } },
        body: bytes as unknown as string,
        bodySerializer: body => body as unknown as BodyInit,
        headers: { 'Content-Type': 'application/octet-stream' },
    });
    if (data) return data.receivedBytes;
    if (response.status === 409) {
        const expected = Number((error as { fields?: Record<string, string> } | undefined)?.fields?.offset);
        if (Number.isFinite(expected)) return expected;
    }
    if (response.status === 413) throw new UploadError(errorMessage(error, 'The recording is too large.'), true);
    // A daily or storage limit: the server says when; the recording waits on the device.
    if (response.status === 429 || response.status === 507) throw new UploadError(errorMessage(error, NETWORK));
    if (response.status === 422) throw new UploadError(errorMessage(error, 'The recording was refused.'), true);
    throw new UploadError(NETWORK);
};

/**
 * Sends what the server does not have yet. `progress` gets the capture after each acknowledged
 * chunk. Resolves with the server's state of the upload once it is complete (or as far as a
 * recording in progress goes).
 */
export const uploadCapture = async (
    capture: Capture,
    progress: (capture: Capture) => void,
): Promise<Recording> => {
    let recording = await ensureUpload(capture);
    let current = (await updateCapture(capture.id, () => ({ uploadId: recording.id }))) ?? capture;
    let offset = recording.receivedBytes;
    const chunk = Math.max(Math.min(MAX_CHUNK, recording.chunkBytes), recording.minChunkBytes ?? 0);
    if (recording.state === 'receiving') {
        for (;;) {
            if (offset > current.sentBytes) {
                current = (await updateCapture(current.id, () => ({ sentBytes: offset, state: 'uploading' }))) ?? current;
                progress(current);
            }
            if (offset >= current.bytes) break;
            // Still recording: only whole chunks, the short rest goes once it stops.
            if (current.recording && current.bytes - offset < chunk) break;
            const bytes = await readAudio(current.id, offset, chunk);
            if (!bytes.length) throw new UploadError('Part of the recording is missing on this device.', true);
            offset = await putChunk(recording.id, offset, bytes);
            current = { ...current, ...((await updateCapture(current.id, () => ({}))) ?? {}) };
        }
        if (current.recording) return recording;
        const { data, error, response } = await api.POST('/api/recordings/{recording_id}/complete', {
            params: { path: { recording_id: recording.id } },
            body: { totalBytes: current.bytes, durationMs: current.durationMs },
        });
        if (!data) {
            if (response.status === 409) return uploadCapture(current, progress); // the server says where to resume
            throw new UploadError(errorMessage(error, NETWORK), response.status === 422);
        }
        recording = data;
    }
    await forgetSentAudio(current.id, Number.MAX_SAFE_INTEGER);
    return recording;
};

export const recordingStatus = async (uploadId: string): Promise<Recording | null> => {
    try {
        const { data } = await api.GET('/api/recordings/{recording_id}', {
            params: { path: { recording_id: uploadId } },
        });
        return data ?? null;
    } catch {
        return null;
    }
};

export const retryRecording = async (uploadId: string): Promise<Recording | null> => {
    try {
        const { data } = await api.POST('/api/recordings/{recording_id}/retry', {
            params: { path: { recording_id: uploadId } },
        });
        return data ?? null;
    } catch {
        return null;
    }
};
