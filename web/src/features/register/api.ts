import { api, errorMessage, fieldErrors, publicApi } from '@/lib/api/client';
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

export type SignupResult =
    | { ok: true; token: string; user: SessionUser }
    /** `message` is the server's English text (a translation key), or null when there was none. */
    | { ok: false; message: string | null; fields: Record<string, string> };

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
        const { data, error } = await client.POST('/api/auth/signup', { body });
        if (data) {
            // Spec §8 'Invalid registration response': a 2xx without a session is unusable.
            if (!data.data?.token || !data.data.user) {
                return { ok: false, message: 'Invalid registration response', fields: {} };
            }
            return { ok: true, token: data.data.token, user: data.data.user };
        }
        return { ok: false, message: errorMessage(error, '') || null, fields: fieldErrors(error) };
    } catch {
        // Network failure or a body that is not JSON: the page shows its fallback text.
        return { ok: false, message: null, fields: {} };
    }
};
