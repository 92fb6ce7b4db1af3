import { errorMessage, fieldErrors, publicApi } from '@/lib/api/client';
import { failure, type Result } from '@/lib/api/result';
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

interface Answer<T> {
    data?: T;
    error?: unknown;
    response: Response;
}

/** A failure's message is the server's English text, or '' when it sent none (the screen has its own). */
const settle = async <T>(call: () => Promise<Answer<T>>): Promise<Result<T>> => {
    try {
        const { data, error, response } = await call();
        if (response.ok && data !== undefined) return { ok: true, data };
        return failure(errorMessage(error, ''), response.status, fieldErrors(error));
    } catch {
        // Network failure or a body that is not JSON: the screen shows its own fallback text.
        return failure('');
    }
};

/** The session, or with two-factor sign-in a challenge for its second step (`@/lib/api/mfa`). */
export const login = (body: {
    email: string;
    password: string;
    role: Role;
}): Promise<
    Result<
        LoginResponse | components['schemas']['MfaChallengeResponse'] | components['schemas']['StepUpResponse']
    >
> => settle(() => publicApi.POST('/api/auth/login', { body }));

/** The sign-in link mailed after a right password from a new place (`?unlock=` on a login page). */
export const unlockLogin = (
    token: string,
): Promise<Result<LoginResponse | components['schemas']['MfaChallengeResponse']>> =>
    settle(() => publicApi.POST('/api/auth/login/unlock', { body: { token } }));

/** The answer is the same whether or not the address has an account. */
export const requestPasswordReset = (email: string): Promise<Result<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/forgot-password', { body: { email } }));

export const resetPassword = (token: string, password: string): Promise<Result<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/reset-password', { body: { token, password } }));

/** The link mailed to the old address: the old sign-in email back, every session signed out. */
export const undoEmailChange = (token: string): Promise<Result<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/undo-email-change', { body: { token } }));

/** The link mailed to a new hospital's address. */
export const verifyEmail = (token: string): Promise<Result<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/verify-email', { body: { token } }));

/** The link mailed to a new address a hospital gave its doctor. */
export const confirmEmailChange = (token: string): Promise<Result<{ message: string }>> =>
    settle(() => publicApi.POST('/api/auth/confirm-email-change', { body: { token } }));
