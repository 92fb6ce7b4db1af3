import { api, errorMessage, fieldErrors, publicApi } from './client';
import { SOMETHING_WENT_WRONG } from './messages';
import { failure, type Result } from './result';
import type { components } from './schema';

/**
 * Two-factor sign-in (TOTP): the code step of a sign-in, the forced enrolment of an account
 * that must have it (both with the challenge the login answered, no session yet: `publicApi`),
 * and the signed-in account's own settings and a hospital's rule for its doctors (`api`).
 * Messages are the server's English texts, translated by the screens.
 */
export type LoginResponse = components['schemas']['LoginResponse'];
export type MfaChallenge = components['schemas']['MfaChallengeResponse'];
export type MfaSetup = components['schemas']['MfaSetupResponse'];
export type MfaStatus = components['schemas']['MfaStatusResponse'];
export type MfaEnrolledLogin = components['schemas']['MfaEnrolledLoginResponse'];

interface Answer<T> {
    data?: T;
    error?: unknown;
    response: Response;
}

const settle = async <T>(call: () => Promise<Answer<T>>): Promise<Result<T>> => {
    try {
        const { data, error, response } = await call();
        if (response.ok && data !== undefined) return { ok: true, data };
        return failure(errorMessage(error, SOMETHING_WENT_WRONG), response.status, fieldErrors(error));
    } catch {
        return failure(SOMETHING_WENT_WRONG);
    }
};

/** Whether a login answer is a challenge (two-factor code or enrolment) rather than a session. */
export const isChallenge = (answer: LoginResponse | MfaChallenge): answer is MfaChallenge => 'mfaRequired' in answer;

export const loginWithCode = (challenge: string, code: string): Promise<Result<LoginResponse>> =>
    settle(() => publicApi.POST('/api/auth/login/mfa', { body: { challenge, code } }));

export const enrolmentSetup = (challenge: string): Promise<Result<MfaSetup>> =>
    settle(() => publicApi.POST('/api/auth/login/mfa/setup', { body: { challenge } }));

export const enrolmentEnable = (challenge: string, code: string): Promise<Result<MfaEnrolledLogin>> =>
    settle(() => publicApi.POST('/api/auth/login/mfa/enable', { body: { challenge, code } }));

export const mfaStatus = (): Promise<Result<MfaStatus>> => settle(() => api.GET('/api/auth/mfa'));

export const mfaSetup = (): Promise<Result<MfaSetup>> => settle(() => api.POST('/api/auth/mfa/setup'));

export const mfaEnable = (code: string): Promise<Result<{ message: string; recoveryCodes: string[] }>> =>
    settle(() => api.POST('/api/auth/mfa/enable', { body: { code } }));

export const mfaDisable = (currentPassword: string, code: string): Promise<Result<{ message: string }>> =>
    settle(() => api.POST('/api/auth/mfa/disable', { body: { currentPassword, code } }));

export const doctorMfaPolicy = (): Promise<Result<{ requireForDoctors: boolean }>> =>
    settle(() => api.GET('/api/auth/mfa/policy'));

export const setDoctorMfaPolicy = (requireForDoctors: boolean): Promise<Result<{ requireForDoctors: boolean }>> =>
    settle(() => api.PUT('/api/auth/mfa/policy', { body: { requireForDoctors } }));
