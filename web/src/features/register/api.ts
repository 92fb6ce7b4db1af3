import { api, errorMessage, fieldErrors, publicApi } from '@/lib/api/client';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';
import type { SessionUser } from '@/lib/session/storage';

/**
 * Registering yourself needs no session, so those calls use `publicApi`, without the
 * stored token: the new account must not be recorded as created by whoever
 * last signed in on this browser, and a stale token must not turn the
 * sign-up into a 401 that the shared client answers by leaving for /login.
 * Only a hospital registering its own doctor sends its token (shared client).
 */

/** POST /api/auth/signup (spec §3 registration payloads, §7). */
export type SignupBody = components['schemas']['SignupRequest'];
export type Availability = components['schemas']['AvailabilityIn'];

/**
 * The new session, or a failure whose message is the server's English text
 * (a translation key), or '' when there was none (the form has its own).
 */
export type SignupResult = Result<SignupOutcome>;

/**
 * A doctor or hospital signing themselves up gets `pending`: the account is made when the
 * mailed link is followed (the answer is the same when the email already has an account).
 * A hospital registering its doctor gets the new `session` at once.
 */
export type SignupOutcome =
    | { kind: 'session'; token: string; user: SessionUser }
    | { kind: 'pending'; email: string };

/** Spec §3 "Availability entry": weekdays 09:00–17:00 available, the weekend not. */
export const DEFAULT_AVAILABILITY: Availability[] = [
    'Monday',
    'Tuesday',
    'Wednesday',
    'Thursday',
    'Friday',
    'Saturday',
    'Sunday',
].map((day, index) => ({ day, startTime: '09:00', endTime: '17:00', isAvailable: index < 5 }));

export const signup = async (body: SignupBody, { asSignedInUser = false } = {}): Promise<SignupResult> => {
    try {
        const client = asSignedInUser ? api : publicApi;
        const { data, error, response } = await client.POST('/api/auth/signup', { body });
        if (data) {
            if (response.status === 202 && 'email' in data.data && data.data.email) {
                return { ok: true, data: { kind: 'pending', email: data.data.email } };
            }
            // Spec §8 'Invalid registration response': a 2xx without a session is unusable.
            if (!('token' in data.data) || !data.data.token || !data.data.user) {
                return failure('Invalid registration response', response.status);
            }
            return { ok: true, data: { kind: 'session', token: data.data.token, user: data.data.user } };
        }
        return failure(errorMessage(error, ''), response.status, fieldErrors(error));
    } catch {
        // Network failure or a body that is not JSON: the page shows its fallback text.
        return failure('');
    }
};

/** The new session a followed sign-up link made (a hospital signs in from its login page). */
export type CompletedSignup = Result<{ token: string; user: SessionUser }>;

/** POST /api/auth/complete-signup: follow the mailed link; the account is made once. */
export const completeSignup = async (token: string): Promise<CompletedSignup> => {
    try {
        const { data, error, response } = await publicApi.POST('/api/auth/complete-signup', { body: { token } });
        if (data) {
            if (!data.data?.token || !data.data.user) return failure('Invalid registration response', response.status);
            return { ok: true, data: { token: data.data.token, user: data.data.user } };
        }
        return failure(errorMessage(error, ''), response.status, fieldErrors(error));
    } catch {
        return failure('');
    }
};
