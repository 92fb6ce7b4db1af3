/**
 * Recording the microphone on this device as Opus (MediaRecorder, WebM or
 * Ogg), written to IndexedDB a second at a time: a reload or a closed tab
 * loses at most the last second. The pieces concatenate into one playable
 * file, which is what is uploaded.
 */
import { appendAudio, type Capture } from './store';

const TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm'];
/** Speech at 24 kb/s: about 180 kB a minute. */
const BIT_RATE = 24_000;
const SLICE_MS = 1000;

export const recordingMimeType = (): string | null => {
    if (typeof MediaRecorder === 'undefined') return null;
    return TYPES.find(type => MediaRecorder.isTypeSupported(type)) ?? null;
};

export interface ActiveRecording {
    /** Stops the recorder; resolves once its last audio is stored. */
    stop: () => Promise<void>;
}

export const startRecording = async (
    capture: Capture,
    onStored: (capture: Capture) => void,
    onError: (error: unknown) => void,
): Promise<ActiveRecording> => {
    const stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
    });
    const recorder = new MediaRecorder(stream, { mimeType: capture.mimeType, audioBitsPerSecond: BIT_RATE });
    const started = performance.now();
    // Pieces are stored one after the other, in the order the recorder gave them.
    let chain: Promise<unknown> = Promise.resolve();
    recorder.ondataavailable = event => {
        const blob = event.data;
        const durationMs = Math.round(performance.now() - started);
        chain = chain
            .then(() => blob.arrayBuffer())
            .then(data => appendAudio(capture.id, data, durationMs))
            .then(stored => stored && onStored(stored))
            .catch(onError);
    };
    const stopped = new Promise<void>(resolve => {
        recorder.onstop = () => resolve();
    });
    recorder.start(SLICE_MS);
    return {
        stop: async () => {
            if (recorder.state !== 'inactive') recorder.stop();
            stream.getTracks().forEach(track => track.stop());
            await stopped;
            await chain;
        },
    };
};
