/**
 * Camera or screen share for the assistant (spec §2, §4): at most one at a
 * time (starting one stops the other), the stream shown in the console's
 * video element, and while connected one JPEG frame every 2 s sent to the
 * assistant. A stream ended by the browser (the "Stop sharing" bar, an
 * unplugged camera) resets the flag.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

import { CaptureError, NO_MEDIA } from '../audio/microphone';

export type VideoKind = 'camera' | 'screen';
export const FRAME_INTERVAL_MS = 2000;
// Spec §9 asks for JPEG quality 1: radiology images must stay readable. The longest side is capped so
// a 4K screen stays well under the server's frame limit.
const JPEG_QUALITY = 1;
const MAX_FRAME_SIDE = 1280;

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

/** Grabs the video element's current picture as base64 JPEG (no data: prefix), or null before the first frame. */
export const grabFrame = (video: HTMLVideoElement, canvas: HTMLCanvasElement): string | null => {
    const { videoWidth: width, videoHeight: height } = video;
    if (!width || !height) return null;
    const scale = Math.min(1, MAX_FRAME_SIDE / Math.max(width, height));
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const context = canvas.getContext('2d');
    if (!context) return null;
    context.drawImage(video, 0, 0, canvas.width, canvas.height);
    const url = canvas.toDataURL('image/jpeg', JPEG_QUALITY);
    const comma = url.indexOf(',');
    return comma > 0 && url.startsWith('data:image/jpeg') ? url.slice(comma + 1) : null;
};
