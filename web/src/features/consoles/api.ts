/**
 * The consoles' HTTP calls: whether the AI service is configured, and
 * summaries / report drafts (POST /api/summarize, answered by a worker).
 */
import { useEffect, useState } from 'react';

import { api, errorMessage } from '@/lib/api/client';
import { NETWORK_FAILED } from '@/lib/api/messages';
import type { components } from '@/lib/api/schema';

export type LiveStatus = components['schemas']['LiveStatusOut'];
export type SummaryKind = 'summary' | 'report';
export type SummaryLine = components['schemas']['TranscriptLineIn'];

/** GET /api/live/status once per console visit; null while loading or when it could not be read. */
export const useLiveStatus = (): LiveStatus | null => {
    const [status, setStatus] = useState<LiveStatus | null>(null);
    useEffect(() => {
        let cancelled = false;
        api.GET('/api/live/status')
            .then(({ data }) => {
                if (!cancelled && data) setStatus(data);
            })
            .catch(() => undefined); // unknown: the console lets the doctor try to connect
        return () => {
            cancelled = true;
        };
    }, []);
    return status;
};

// Spec §9: the browser gives up on a summary after 30 s (the server's own wait is 30 s too).
export const SUMMARY_TIMEOUT_MS = 30_000;

// Spec §8 "Summary" (English keys; the console translates them).
export const SUMMARY_TIMED_OUT = 'Summary generation timed out. Please try again.';
export const SUMMARY_INVALID = 'Received invalid response from server.';
export const SUMMARY_HTTP_ERROR = 'Error: HTTP error! Status: {{status}}';
export const SUMMARY_ERROR = 'Error: {{message}}';

/** A failed summary request: `key` is a translation key, `values` its interpolations. */
export class SummaryError extends Error {
    constructor(
        readonly key: string,
        readonly values: Record<string, string | number> = {},
    ) {
        super(key);
        this.name = 'SummaryError';
    }
}

export interface SummaryResult {
    summary: string;
    label: string;
}

/**
 * `consultationId`: the live consultation's id, so the draft is kept on it (the worker drafts
 * from its stored transcript; the lines sent are used only while none is stored yet).
 */
export const requestSummary = async (
    transcript: SummaryLine[],
    kind: SummaryKind,
    focus?: string,
    consultationId?: string | null,
): Promise<SummaryResult> => {
    const controller = new AbortController();
    const timer = window.setTimeout(() => controller.abort(), SUMMARY_TIMEOUT_MS);
    try {
        const { data, error, response } = await api.POST('/api/summarize', {
            body: { transcript, kind, focus: focus?.trim() || null, consultationId: consultationId ?? null },
            signal: controller.signal,
        });
        if (response.status === 504) throw new SummaryError(SUMMARY_TIMED_OUT);
        if (!response.ok) {
            // The server's message when it sent one (spec §8), else the status.
            const message = errorMessage(error, '');
            throw message
                ? new SummaryError(SUMMARY_ERROR, { message })
                : new SummaryError(SUMMARY_HTTP_ERROR, { status: response.status });
        }
        if (!data || typeof data.summary !== 'string' || !data.summary.trim()) throw new SummaryError(SUMMARY_INVALID);
        return { summary: data.summary, label: data.label ?? '' };
    } catch (error) {
        if (error instanceof SummaryError) throw error;
        if (controller.signal.aborted) throw new SummaryError(SUMMARY_TIMED_OUT);
        if (error instanceof SyntaxError) throw new SummaryError(SUMMARY_INVALID);
        throw new SummaryError(NETWORK_FAILED);
    } finally {
        window.clearTimeout(timer);
    }
};
