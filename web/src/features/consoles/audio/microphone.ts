/**
 * Microphone capture: getUserMedia with echo cancellation and noise
 * suppression asked for, an AudioWorklet (capture-worklet.ts) converting the
 * device's native rate to 16 kHz 16-bit PCM, and whole 2048-sample chunks
 * handed to the caller. Works in Chrome and Firefox because the context keeps
 * the device's rate (Firefox refuses mixed-rate graphs).
 */
import workletUrl from './capture-worklet.ts?worker&url';

export const CAPTURE_RATE = 16_000;
export const CAPTURE_CHUNK_SAMPLES = 2048;

/** A capture failure worded as spec §8 "Speech/media" (English keys; the console translates them). */
export class CaptureError extends Error {
    constructor(
        message: string,
        readonly code?: string,
    ) {
        super(message);
        this.name = 'CaptureError';
    }
}

export const MIC_DENIED = 'Microphone access denied';
export const MIC_FAILED = 'Audio capture error - please check your microphone';
export const NO_MEDIA = 'Could not request user media';
export const UNKNOWN_MEDIA_ERROR = 'Unknown error: {{code}}';

/** getUserMedia's DOMException names mapped to the spec's messages. */
export const captureError = (error: unknown): CaptureError => {
    if (error instanceof CaptureError) return error;
    const name = error instanceof DOMException || error instanceof Error ? error.name : String(error);
    if (name === 'NotAllowedError' || name === 'SecurityError') return new CaptureError(MIC_DENIED, name);
    if (['NotFoundError', 'NotReadableError', 'OverconstrainedError', 'AbortError', 'InvalidStateError'].includes(name))
        return new CaptureError(MIC_FAILED, name);
    return new CaptureError(UNKNOWN_MEDIA_ERROR, name || 'unknown');
};

const loaded = new WeakMap<BaseAudioContext, Promise<void>>();

const loadWorklet = (context: AudioContext): Promise<void> => {
    let loading = loaded.get(context);
    if (!loading) {
        loading = context.audioWorklet.addModule(workletUrl);
        loaded.set(context, loading);
    }
    return loading;
};

export interface MicrophoneHandlers {
    onChunk: (pcm: Int16Array) => void;
    onLevel?: (level: number) => void;
    /** The device went away (unplugged, revoked) after capture started. */
    onEnded?: () => void;
}

/** Starts capturing; resolves to a function that stops it and releases the device. */
export const startMicrophone = async (context: AudioContext, handlers: MicrophoneHandlers): Promise<() => void> => {
    if (!navigator.mediaDevices?.getUserMedia) throw new CaptureError(NO_MEDIA);
    if (!context.audioWorklet) throw new CaptureError(MIC_FAILED, 'NoAudioWorklet');
    let stream: MediaStream;
    try {
        stream = await navigator.mediaDevices.getUserMedia({
            audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
        });
    } catch (error) {
        throw captureError(error);
    }
    try {
        await loadWorklet(context);
    } catch (error) {
        stream.getTracks().forEach(track => track.stop());
        throw new CaptureError(MIC_FAILED, error instanceof Error ? error.name : 'WorkletError');
    }
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, 'cara-capture', {
        numberOfInputs: 1,
        numberOfOutputs: 1,
        channelCount: 1,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions: { targetRate: CAPTURE_RATE, chunkSamples: CAPTURE_CHUNK_SAMPLES },
    });
    // A muted path to the destination: some engines only run nodes the destination pulls.
    const sink = context.createGain();
    sink.gain.value = 0;
    source.connect(node);
    node.connect(sink);
    sink.connect(context.destination);

    let stopped = false;
    node.port.onmessage = (event: MessageEvent<{ pcm: ArrayBuffer; level: number }>) => {
        if (stopped) return;
        handlers.onLevel?.(Math.min(1, event.data.level * 4));
        handlers.onChunk(new Int16Array(event.data.pcm));
    };
    const [track] = stream.getAudioTracks();
    const ended = () => {
        if (!stopped) handlers.onEnded?.();
    };
    track?.addEventListener('ended', ended);

    return () => {
        if (stopped) return;
        stopped = true;
        track?.removeEventListener('ended', ended);
        node.port.onmessage = null;
        source.disconnect();
        node.disconnect();
        sink.disconnect();
        stream.getTracks().forEach(t => t.stop());
        handlers.onLevel?.(0);
    };
};
