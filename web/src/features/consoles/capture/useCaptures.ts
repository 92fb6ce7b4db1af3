/**
 * The console's recordings to process later: record (after the consent
 * step) into IndexedDB, and whenever the connection allows, upload what the
 * server does not have, complete it, and follow the worker until the
 * consultation exists. Runs again on the browser's 'online' event and on a
 * timer that backs off while the server cannot be reached.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { PatientReference } from '../consent/api';
import { recordingMimeType, startRecording, type ActiveRecording } from './recorder';
import {
    captureStorageAvailable,
    deleteCapture,
    listCaptures,
    saveCapture,
    updateCapture,
    type Capture,
} from './store';
import { NETWORK, recordingStatus, retryRecording, uploadCapture, UploadError } from './upload';

const FIRST_DELAY_MS = 2000;
const MAX_DELAY_MS = 30_000;
export const RECORD_FAILED = 'The microphone could not be used for recording.';
export const NOT_SUPPORTED = 'This browser cannot record audio for later.';
const STORE_FAILED = 'The recording could not be stored on this device.';

const pending = (capture: Capture) =>
    capture.state !== 'done' && capture.state !== 'failed' && capture.state !== 'waiting';

const newId = (): string =>
    typeof crypto.randomUUID === 'function'
        ? crypto.randomUUID()
        : '10000000-1000-4000-8000-100000000000'.replace(/[018]/g, c =>
              (Number(c) ^ (crypto.getRandomValues(new Uint8Array(1))[0] & (15 >> (Number(c) / 4)))).toString(16),
          );

export const useCaptures = (console: string) => {
    const [captures, setCaptures] = useState<Capture[]>([]);
    const [online, setOnline] = useState(() => navigator.onLine);
    const [error, setError] = useState<string | null>(null);
    const [recordingId, setRecordingId] = useState<string | null>(null);
    const active = useRef<{ id: string; recording: ActiveRecording } | null>(null);
    const { i18n } = useTranslation();
    const syncing = useRef(false);
    const again = useRef(false);
    const delay = useRef(FIRST_DELAY_MS);
    const timer = useRef<number | undefined>(undefined);
    const supported = captureStorageAvailable() && recordingMimeType() !== null;

    const refresh = useCallback(async () => {
        try {
            setCaptures(await listCaptures());
        } catch {
            setError(STORE_FAILED);
        }
    }, []);

    const sync = useCallback(async () => {
        if (syncing.current) {
            again.current = true;
            return;
        }
        syncing.current = true;
        window.clearTimeout(timer.current);
        let reachable = true;
        try {
            const all = (await listCaptures()).reverse(); // oldest first
            for (const capture of all) {
                if (!pending(capture)) continue;
                try {
                    if (capture.state === 'processing' && capture.uploadId) {
                        const status = await recordingStatus(capture.uploadId);
                        if (!status) {
                            reachable = false;
                            continue;
                        }
                        const finished = status.state;
                        if (finished === 'done' || finished === 'failed' || finished === 'waiting')
                            await updateCapture(capture.id, () => ({
                                state: finished,
                                consultationId: status.consultationId ?? undefined,
                                error: status.error ?? undefined,
                            }));
                        continue;
                    }
                    if (capture.recording && capture.id === active.current?.id && capture.bytes === capture.sentBytes)
                        continue;
                    const recording = await uploadCapture(capture, () => void refresh());
                    const server = recording.state;
                    await updateCapture(capture.id, current => ({
                        uploadId: recording.id,
                        state: server !== 'receiving' ? server : current.recording ? 'recording' : 'uploading',
                        consultationId: recording.consultationId ?? undefined,
                        error: recording.error ?? undefined,
                    }));
                } catch (failure) {
                    if (failure instanceof UploadError && failure.final) {
                        await updateCapture(capture.id, () => ({ state: 'failed', error: failure.message }));
                    } else {
                        reachable = false;
                        // A limit the server named (daily bytes, storage): shown while it waits.
                        const reason =
                            failure instanceof UploadError && failure.message !== NETWORK ? failure.message : undefined;
                        await updateCapture(capture.id, current => ({
                            state: current.recording ? 'recording' : 'queued',
                            error: reason,
                        }));
                    }
                }
                await refresh();
            }
            await refresh();
            const left = (await listCaptures()).some(pending);
            delay.current = reachable ? FIRST_DELAY_MS : Math.min(MAX_DELAY_MS, delay.current * 2);
            if (left) timer.current = window.setTimeout(() => void sync(), delay.current);
        } catch {
            setError(STORE_FAILED);
        } finally {
            syncing.current = false;
            if (again.current) {
                again.current = false;
                void sync();
            }
        }
    }, [refresh]);

    // A capture left 'recording' by a closed or reloaded tab is stopped where it was stored.
    useEffect(() => {
        if (!supported) return;
        void (async () => {
            try {
                for (const capture of await listCaptures()) {
                    if (capture.recording && capture.id !== active.current?.id)
                        await updateCapture(capture.id, () => ({ recording: false, state: 'queued' }));
                }
            } catch {
                setError(STORE_FAILED);
            }
            await refresh();
            void sync();
        })();
    }, [supported, refresh, sync]);

    useEffect(() => {
        const up = () => {
            setOnline(true);
            delay.current = FIRST_DELAY_MS;
            void sync();
        };
        const down = () => setOnline(false);
        window.addEventListener('online', up);
        window.addEventListener('offline', down);
        return () => {
            window.removeEventListener('online', up);
            window.removeEventListener('offline', down);
            window.clearTimeout(timer.current);
        };
    }, [sync]);

    // Leaving the console stops the recorder; what it stored stays queued.
    useEffect(
        () => () => {
            const current = active.current;
            active.current = null;
            if (current)
                void current.recording
                    .stop()
                    .then(() => updateCapture(current.id, () => ({ recording: false, state: 'queued' })));
        },
        [],
    );

    /** Starts recording; `consent`: the doctor confirmed the patient's consent in the dialog. */
    const start = useCallback(
        async (consent: boolean, patientReference: PatientReference | null = null) => {
            const mimeType = recordingMimeType();
            if (!supported || !mimeType) {
                setError(NOT_SUPPORTED);
                return;
            }
            if (active.current) return;
            setError(null);
            const capture: Capture = {
                id: newId(),
                console,
                consent,
                recordedAt: new Date().toISOString(),
                durationMs: 0,
                mimeType,
                bytes: 0,
                recording: true,
                state: 'recording',
                sentBytes: 0,
                language: i18n.resolvedLanguage ?? i18n.language,
                ...(patientReference ? { patientReference } : {}),
            };
            try {
                await saveCapture(capture);
                const recording = await startRecording(
                    capture,
                    () => void refresh(),
                    () => setError(STORE_FAILED),
                );
                active.current = { id: capture.id, recording };
                setRecordingId(capture.id);
            } catch {
                await deleteCapture(capture.id).catch(() => undefined);
                setError(RECORD_FAILED);
            }
            await refresh();
        },
        [console, supported, refresh, i18n],
    );

    const stop = useCallback(async () => {
        const current = active.current;
        if (!current) return;
        active.current = null;
        setRecordingId(null);
        await current.recording.stop();
        const stopped = await updateCapture(current.id, () => ({ recording: false, state: 'queued' }));
        if (stopped && stopped.bytes === 0) await deleteCapture(current.id); // nothing was recorded
        await refresh();
        delay.current = FIRST_DELAY_MS;
        void sync();
    }, [refresh, sync]);

    const retry = useCallback(
        async (id: string) => {
            const capture = captures.find(item => item.id === id);
            if (!capture) return;
            const status = capture.uploadId ? await recordingStatus(capture.uploadId) : null;
            if ((status?.state === 'failed' || status?.state === 'waiting') && capture.uploadId) {
                const retried = await retryRecording(capture.uploadId);
                if (retried) await updateCapture(id, () => ({ state: 'processing', error: undefined }));
            } else {
                await updateCapture(id, () => ({ state: 'queued', error: undefined }));
            }
            delay.current = FIRST_DELAY_MS;
            await refresh();
            void sync();
        },
        [captures, refresh, sync],
    );

    /** Forgets a processed capture on this device (its consultation stays). */
    const dismiss = useCallback(
        async (id: string) => {
            await deleteCapture(id);
            await refresh();
        },
        [refresh],
    );

    return { captures, online, error, recordingId, supported, start, stop, retry, dismiss, clearError: () => setError(null) };
};
