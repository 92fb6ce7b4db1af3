import { fetchUtils } from 'react-admin';
import { BROWSER_HEADER, BROWSER_HEADER_VALUE, renewSession, session } from './session';

/** Same origin as the page: the API serves this console at /admin/ beside /api. */
export const API_URL = '/api';
export const ADMIN_API_URL = `${API_URL}/admin`;

const send = (url: string, options: fetchUtils.Options) => {
    const token = session.token();
    const headers = new Headers(options.headers as HeadersInit | undefined);
    headers.set(BROWSER_HEADER, BROWSER_HEADER_VALUE);
    return fetchUtils.fetchJson(url, {
        ...options,
        headers,
        user: token ? { authenticated: true, token: `Bearer ${token}` } : undefined,
    });
};

/**
 * fetch + JSON with the access token held in memory on every request; a 401 on
 * a call that carried one renews the token once from the refresh cookie and
 * retries. Failures reject with react-admin's HttpError(message from the
 * `{"message"}` body, status, body).
 */
export const httpClient = async (url: string, options: fetchUtils.Options = {}) => {
    const hadToken = Boolean(session.token());
    try {
        return await send(url, options);
    } catch (error) {
        if (hadToken && httpStatus(error) === 401 && (await renewSession())) return send(url, options);
        throw error;
    }
};

/** The `message` of an API error body (`{"message": str, "fields": {...}}`), if any. */
export const serverMessage = (error: unknown): string | undefined => {
    const body = (error as { body?: unknown } | null)?.body;
    const message = (body as { message?: unknown } | null | undefined)?.message;
    return typeof message === 'string' && message.trim() ? message : undefined;
};

export const httpStatus = (error: unknown): number | undefined => {
    const status = (error as { status?: unknown } | null)?.status;
    return typeof status === 'number' ? status : undefined;
};
