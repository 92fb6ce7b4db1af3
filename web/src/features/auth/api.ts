import { errorMessage, fieldErrors, publicApi } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';
import type { Role } from '@/lib/session/storage';

/**
 * The calls of the sign-in and password-reset screens (spec §7).
 *
 * They use `publicApi` (no bearer token) on purpose: these calls need no
 * token, and with one attached the shared
 * client reads any 401 as "the session has expired" (clears it and reloads
 * /login). A wrong password typed while another account is still signed in
 * would then end that session and wipe the form's error message.
 */

export type LoginResponse = components['schemas']['LoginResponse'];

export interface Failure {
    ok: false;
    /** 0 when the server could not be reached. */
    status: number;
    /** The server's English message, if it sent one. */
    message: string | null;
    /** Per-field messages of a 422 answer. */
    fields: Record<string, string>;
}
export type Outcome<T> = { ok: true; data: T } | Failure;

interface Answer<T> {
    data?: T;
    error?: unknown;
    response: Response;
}

const settle = async <T>(call: () => Promise<Answer<T>>): Promise<Outcome<T>> => {
    try {
        const { data, error, response } = await call();
        if (response.ok && data !== undefined) return { ok: true, data };
        return { ok: false, status: response.status, message: errorMessage(error, '') || null, fields: fieldErrors(error) };
    } catch {
        // Network failure or a body that is not JSON: the screen shows its own fallback text.
        return { ok: false, status: 0, message: null, fields: {} };
    }
};

export const login = (body: { email: string; password: string; role: Role }): Promise<Outcome<LoginResponse>> =>
    settle(() => publicApi.POST('/api/auth/login', { body }));

/** The answer is the same whether or not the address has an account. */
export const requestPasswordReset = (email: string): Promise<Outcome<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/forgot-password', { body: { email } }));

export const resetPassword = (token: string, password: string): Promise<Outcome<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/reset-password', { body: { token, password } }));
