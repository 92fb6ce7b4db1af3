/**
 * One live consultation over `/api/live` for a console: the state machine of
 * liveSocket.ts (the socket, its states, the transcript, rejoin and the
 * watch on the link), rendered through its snapshots. The console's handlers
 * and its Opus wish are handed to the socket on every render.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';

import { freshToken } from '@/lib/session/storage';
import { LiveSocket, type LiveSessionEvents } from './liveSocket';
import { liveSocketUrl, probeServer } from './protocol';
import { consultationStore } from './rejoin';

/** `opus`: this browser encodes and decodes Opus (WebCodecs); asked for in the first frame. */
export const useLiveSession = (consoleKey: string, events: LiveSessionEvents, options: { opus?: boolean } = {}) => {
    // One socket for the console's life (each console is its own route, so the key does not change).
    const [live] = useState(
        () =>
            new LiveSocket({
                url: () => liveSocketUrl(consoleKey),
                token: freshToken,
                store: consultationStore(consoleKey),
                probe: probeServer,
            }),
    );
    live.events = events;
    live.wantOpus = Boolean(options.opus);
    const snapshot = useSyncExternalStore(live.subscribe, live.getSnapshot);

    // Watches the link, retries when the network is back, rejoins what a reload left; closes on leaving.
    useEffect(() => live.attach(), [live]);

    const actions = useMemo(
        () => ({
            connect: live.connect,
            disconnect: live.disconnect,
            retryNow: live.retryNow,
            dismissNotice: live.dismissNotice,
            sendAudio: live.sendAudio,
            sendAudioEnd: live.sendAudioEnd,
            sendVideo: live.sendVideo,
            sendText: live.sendText,
        }),
        [live],
    );

    return { ...snapshot, ...actions };
};

export type LiveSession = ReturnType<typeof useLiveSession>;
