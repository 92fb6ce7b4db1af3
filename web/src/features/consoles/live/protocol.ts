/**
 * The browser side of `/api/live` (server: platform/cara/live/messages.py).
 * JSON text frames; the access token is the first frame, never in the URL.
 */
export type Speaker = 'user' | 'assistant' | 'tool';

export type ClientMessage =
    // consultationId: the consultation to join or rejoin (kept by the browser across drops and reloads)
    // audio: 'opus' asks for Opus in binary frames both ways (WebCodecs); 'pcm' (default) base64 PCM in JSON
    | { type: 'auth'; token: string; consultationId?: string; audio?: 'opus' | 'pcm' }
    | { type: 'audio'; data: string } // base64 PCM16LE, 16 kHz, mono
    | { type: 'audioStreamEnd' }
    | { type: 'pong'; at?: number } // answer to each ping
    | { type: 'video'; data: string } // base64 JPEG
    | { type: 'text'; text: string };

export interface StatusMessage {
    type: 'status';
    state: 'connecting' | 'connected' | 'reconnecting' | 'error';
    message: string;
    // connected
    consultationId?: string;
    console?: string;
    voice?: string;
    awake?: boolean;
    wakePhraseRequired?: boolean;
    resumed?: boolean;
    /** How audio travels on this socket: Opus in binary frames, or base64 PCM in JSON. */
    audio?: 'opus' | 'pcm';
    /** The server takes `consultationId` in the first frame: a dropped socket rejoins this consultation. */
    rejoin?: boolean;
    demo?: boolean;
    // error: unauthorized | forbidden | not_found | not_configured | upstream | unavailable
    code?: string;
}

export interface TranscriptMessage {
    type: 'transcript';
    speaker: Speaker;
    text: string;
    final: boolean;
    at: string;
    seq?: number;
}

export type ServerMessage =
    | StatusMessage
    | { type: 'wake'; awake: boolean; message: string }
    | { type: 'audio'; data: string; mimeType?: string }
    | TranscriptMessage
    | { type: 'interrupted' }
    | { type: 'turnComplete' }
    | { type: 'toolResult'; name: string; result: Record<string, unknown> }
    // code: 'camera_not_in_plan' (the console stops sending frames), 'turns_limited'
    | { type: 'error'; message: string; code?: string }
    // every second: a console that hears nothing for 3 s says the connection is weak; `lag` (how
    // long the oldest unanswered ping has waited) and `rtt` (the latest round trip), in ms
    | { type: 'ping'; at?: number; lag?: number; rtt?: number };

/** Close codes the server ends a refused consultation with (4000-4999 are the application's). */
export const CLOSE_CODES = {
    badRequest: 4400,
    unauthorized: 4401,
    forbidden: 4403,
    notFound: 4404,
    replaced: 4409, // the consultation was opened in another window
    upstream: 4502,
    notConfigured: 4503,
} as const;

export const parseServerMessage = (raw: unknown): ServerMessage | null => {
    if (typeof raw !== 'string') return null; // the server only sends text frames
    try {
        const value: unknown = JSON.parse(raw);
        if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string') {
            return value as ServerMessage;
        }
    } catch {
        // not JSON: ignored like any unknown frame
    }
    return null;
};

/** The socket's address: same origin as the API (VITE_API_URL when the API lives elsewhere). */
export const liveSocketUrl = (console: string): string => {
    const base = import.meta.env.VITE_API_URL || window.location.origin;
    const url = new URL('/api/live', base);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('specialty', console);
    return url.toString();
};

/** How long a probe of the link may take before the link counts as down. */
export const PROBE_TIMEOUT_MS = 1500;

/**
 * Does the server answer now? GET /api/health/live (the orchestrator's liveness probe: no
 * database, a few bytes; never cached, and the service worker leaves /api/ alone).
 */
export const probeServer = async (): Promise<boolean> => {
    const base = import.meta.env.VITE_API_URL || window.location.origin;
    try {
        const response = await fetch(new URL('/api/health/live', base), {
            cache: 'no-store',
            signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        return response.ok;
    } catch {
        return false;
    }
};

/** Spec §8 "Live socket": a close reason is shown with any prefix up to 'ERROR]' stripped. */
export const closeReasonText = (reason: string): string => reason.replace(/^[\s\S]*ERROR\]\s*/, '').trim();
