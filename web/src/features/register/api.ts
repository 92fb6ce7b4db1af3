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
export type SignupResult = Result<{ token: string; user: SessionUser }>;

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
            // Spec §8 'Invalid registration response': a 2xx without a session is unusable.
            if (!data.data?.token || !data.data.user) {
                return failure('Invalid registration response', response.status);
            }
            return { ok: true, data: { token: data.data.token, user: data.data.user } };
        }
        return failure(errorMessage(error, ''), response.status, fieldErrors(error));
    } catch {
        // Network failure or a body that is not JSON: the page shows its fallback text.
        return failure('');
    }
};
