import { fetchUtils } from 'react-admin';
import { session } from './session';

/** Same origin as the page: the API serves this console at /admin/ beside /api. */
export const API_URL = '/api';
export const ADMIN_API_URL = `${API_URL}/admin`;

/**
 * fetch + JSON with the stored bearer token on every request. Failures reject
 * with react-admin's HttpError(message from the `{"message"}` body, status, body).
 */
export const httpClient = (url: string, options: fetchUtils.Options = {}) => {
    const token = session.token();
    return fetchUtils.fetchJson(url, {
        ...options,
        user: token ? { authenticated: true, token: `Bearer ${token}` } : undefined,
    });
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
