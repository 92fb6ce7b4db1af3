/**
 * Camera or screen share for the assistant (spec §2, §4): at most one at a
 * time (starting one stops the other), the stream shown in the console's
 * video element, and while connected one JPEG frame every 2 s sent to the
 * assistant when the picture changed. A stream ended by the browser (the "Stop sharing" bar, an
 * unplugged camera) resets the flag.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

import { CaptureError, NO_MEDIA } from '../audio/microphone';

export type VideoKind = 'camera' | 'screen';
export const FRAME_INTERVAL_MS = 2000;
/** Longest side and JPEG quality of the frames sent to the assistant. */
export interface FrameProfile {
    maxSide: number;
    quality: number;
}
// Spec §9 asks for JPEG quality 1: radiology images must stay readable. The longest side is capped so
// a 4K screen stays well under the server's frame limit.
export const FULL_PROFILE: FrameProfile = { maxSide: 1280, quality: 1 };
// Low-bandwidth mode: a frame a tenth of the size, still readable for a chest film on screen.
export const LOW_BANDWIDTH_PROFILE: FrameProfile = { maxSide: 768, quality: 0.6 };
// A picture whose 32x18 grey thumbnail moved less than this (mean of 0-255 differences) is unchanged.
const CHANGE_THRESHOLD = 3;
const THUMB_WIDTH = 32;
const THUMB_HEIGHT = 18;

export const CAMERA_DENIED = 'Camera access denied';
export const VIDEO_FAILED = 'Could not start the camera or screen sharing';

/** getUserMedia/getDisplayMedia failures for video, worded for the console (English keys). */
const videoError = (error: unknown): CaptureError => {
    const name = error instanceof Error ? error.name : 'unknown';
    if (name === 'NotAllowedError' || name === 'SecurityError') return new CaptureError(CAMERA_DENIED, name);
    return new CaptureError(VIDEO_FAILED, name);
};

export const videoSupport = () => ({
    camera: typeof navigator !== 'undefined' && Boolean(navigator.mediaDevices?.getUserMedia),
    screen: typeof navigator !== 'undefined' && Boolean(navigator.mediaDevices?.getDisplayMedia),
});

export const useVideoSource = (onError: (error: CaptureError) => void) => {
    const [kind, setKind] = useState<VideoKind | null>(null);
    const [stream, setStream] = useState<MediaStream | null>(null);
    const current = useRef<MediaStream | null>(null);
    const starting = useRef(0);

    const stop = useCallback(() => {
        starting.current += 1; // a start still waiting for permission is dropped
        current.current?.getTracks().forEach(track => track.stop());
        current.current = null;
        setStream(null);
        setKind(null);
    }, []);

    const start = useCallback(
        async (next: VideoKind) => {
            const devices = navigator.mediaDevices;
            const request = next === 'camera' ? devices?.getUserMedia : devices?.getDisplayMedia;
            if (!devices || !request) {
                onError(new CaptureError(NO_MEDIA));
                return;
            }
            stop();
            const ticket = ++starting.current;
            try {
                const media =
                    next === 'camera'
                        ? await devices.getUserMedia({ video: { width: { ideal: 1280 }, height: { ideal: 720 } } })
                        : await devices.getDisplayMedia({ video: true, audio: false });
                if (ticket !== starting.current) {
                    media.getTracks().forEach(track => track.stop());
                    return;
                }
                current.current = media;
                media.getVideoTracks().forEach(track =>
                    track.addEventListener('ended', () => {
                        if (current.current === media) stop();
                    }),
                );
                setStream(media);
                setKind(next);
            } catch (error) {
                // Cancelling the screen picker is a choice, not an error.
                if (next === 'screen' && error instanceof DOMException && error.name === 'NotAllowedError') return;
                onError(videoError(error));
            }
        },
        [onError, stop],
    );

    useEffect(() => () => current.current?.getTracks().forEach(track => track.stop()), []);

    return { kind, stream, start, stop };
};

/**
 * Tells whether the picture changed since the last frame sent: a small grey thumbnail compared with the
 * previous one. Only changed pictures are sent (a still image costs nothing after its first frame).
 */
export class ChangeDetector {
    private readonly thumb = document.createElement('canvas');
    private last: Uint8ClampedArray | null = null;

    constructor() {
        this.thumb.width = THUMB_WIDTH;
        this.thumb.height = THUMB_HEIGHT;
    }

    changed(video: HTMLVideoElement): boolean {
        const context = this.thumb.getContext('2d', { willReadFrequently: true });
        if (!context || !video.videoWidth) return true;
        context.drawImage(video, 0, 0, THUMB_WIDTH, THUMB_HEIGHT);
        const { data } = context.getImageData(0, 0, THUMB_WIDTH, THUMB_HEIGHT);
        const grey = new Uint8ClampedArray(THUMB_WIDTH * THUMB_HEIGHT);
        for (let i = 0; i < grey.length; i++) grey[i] = (data[i * 4] * 3 + data[i * 4 + 1] * 6 + data[i * 4 + 2]) / 10;
        const previous = this.last;
        this.last = grey;
        return previous === null || meanDifference(previous, grey) >= CHANGE_THRESHOLD;
    }

    /** The next picture counts as changed (a new consultation socket, a new source). */
    reset(): void {
        this.last = null;
    }
}

export const meanDifference = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
    if (a.length !== b.length || !a.length) return Infinity;
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
    return sum / a.length;
};

/** Grabs the video element's current picture as base64 JPEG (no data: prefix), or null before the first frame. */
export const grabFrame = (
    video: HTMLVideoElement,
    canvas: HTMLCanvasElement,
    profile: FrameProfile = FULL_PROFILE,
): string | null => {
    const { videoWidth: width, videoHeight: height } = video;
    if (!width || !height) return null;
    const scale = Math.min(1, profile.maxSide / Math.max(width, height));
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    if (!context) return null;
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const url = canvas.toDataURL('image/jpeg', profile.quality);
    const comma = url.indexOf(',');
    return comma > 0 && url.startsWith('data:image/jpeg') ? url.slice(comma + 1) : null;
};
