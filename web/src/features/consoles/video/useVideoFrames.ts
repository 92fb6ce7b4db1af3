/**
 * The console's picture for the assistant: the camera or screen stream of
 * useVideoSource shown in the returned video element, and while connected one
 * JPEG frame every 2 s when the picture changed (smaller ones in
 * low-bandwidth mode, which also turns the video off when it starts). The
 * link's measured delay (live/uplink.ts) makes the frames small (`small`) or
 * stops sending them (`paused`) while the preview stays on.
 */
import { useEffect, useMemo, useRef } from 'react';

import {
    ChangeDetector,
    FRAME_INTERVAL_MS,
    FULL_PROFILE,
    grabFrame,
    LOW_BANDWIDTH_PROFILE,
    type useVideoSource,
} from './useVideoSource';

export interface VideoFramesOptions {
    connected: boolean;
    lowBandwidth: boolean;
    /** The link is slow: small frames, the camera kept on. */
    small?: boolean;
    /** The link cannot carry frames: none sent (the preview stays). */
    paused?: boolean;
    /** Sends one base64 JPEG frame; false when the socket could not take it. */
    sendVideo: (frame: string) => boolean;
    /** Writes a test hook (a data attribute) on the console's element. */
    mark: (name: string, value: number) => void;
}

export const useVideoFrames = (
    video: ReturnType<typeof useVideoSource>,
    { connected, lowBandwidth, small = false, paused = false, sendVideo, mark }: VideoFramesOptions,
) => {
    const element = useRef<HTMLVideoElement>(null);
    const frames = useRef(0);
    const canvas = useMemo(() => document.createElement('canvas'), []);
    const detector = useMemo(() => new ChangeDetector(), []);
    const { stream, stop } = video;

    useEffect(() => {
        if (element.current) element.current.srcObject = stream;
    }, [stream]);

    const profile = lowBandwidth || small ? LOW_BANDWIDTH_PROFILE : FULL_PROFILE;
    useEffect(() => {
        if (!connected || !stream || paused) return;
        detector.reset(); // a new socket or source gets the picture once
        const timer = window.setInterval(() => {
            const current = element.current;
            // Only a picture that changed is sent.
            if (!current || !detector.changed(current)) return;
            const frame = grabFrame(current, canvas, profile);
            if (frame && sendVideo(frame)) {
                frames.current += 1;
                mark('videoFrames', frames.current);
            }
        }, FRAME_INTERVAL_MS);
        return () => window.clearInterval(timer);
    }, [connected, stream, paused, canvas, sendVideo, mark, detector, profile]);

    // Low-bandwidth mode starts without video: the doctor turns the camera back on if it is needed.
    useEffect(() => {
        if (lowBandwidth) stop();
    }, [lowBandwidth, stop]);

    return element;
};
