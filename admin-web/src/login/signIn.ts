import { BROWSER_HEADER, BROWSER_HEADER_VALUE, session, type SessionUser } from '../lib/session';

/** i18n keys of the login failures (spec §5 and §8); the page translates them. */
export const LOGIN_FAILED = 'cara.login.failed';
export const LOGIN_NO_TOKEN = 'cara.login.no_token';

export interface PasswordParams {
    email: string;
    password: string;
}

/**
 * What signs an admin in: the password; the challenge the password answered with a code from the
 * authenticator app (or a recovery code); or a forced enrolment just completed (its session).
 */
export type LoginParams =
    | PasswordParams
    | { challenge: string; code: string }
    | { enrolled: { token: string; user: SessionUser } };

/** A right password for an account with two-factor sign-in (`code`) or one that must enrol first
 * (`enroll`): the form asks for the next step with this challenge. */
export class MfaNeeded extends Error {
    constructor(
        readonly kind: 'code' | 'enroll',
        readonly challenge: string,
    ) {
        super('cara.mfa.needed');
    }
}

export const isMfaNeeded = (error: unknown): error is MfaNeeded =>
    error instanceof MfaNeeded || (typeof error === 'object' && error !== null && 'challenge' in error && 'kind' in error);

const post = async (path: string, body: unknown): Promise<{ response: Response; json: Record<string, unknown> | null }> => {
    let response: Response;
    try {
        response = await fetch(path, {
            method: 'POST',
            credentials: 'same-origin',
            headers: {
                Accept: 'application/json',
                'Content-Type': 'application/json',
                [BROWSER_HEADER]: BROWSER_HEADER_VALUE,
            },
            body: JSON.stringify(body),
        });
    } catch {
        throw new Error(LOGIN_FAILED);
    }
    const json = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok) {
        // The server's own text when it sent one (wrong password or code, throttled...).
        const fields = json?.fields as Record<string, unknown> | undefined;
        const detail = typeof fields?.code === 'string' ? fields.code : json?.message;
        throw new Error(typeof detail === 'string' && detail.trim() ? detail : LOGIN_FAILED);
    }
    return { response, json };
};

const startSession = (token: unknown, user: SessionUser | undefined): SessionUser => {
    if (typeof token !== 'string' || !token) throw new Error(LOGIN_NO_TOKEN);
    if (!user || user.role !== 'admin') throw new Error(LOGIN_FAILED);
    session.save(token, user);
    return user;
};

/**
 * POST /api/auth/login as an admin (then /api/auth/login/mfa with a code), with plain fetch: the
 * login screen is loaded before react-admin (whose code comes after sign-in), so this module
 * must not import it. The browser header makes the server start a session (HttpOnly refresh
 * cookie); the access token stays in memory (lib/session). Rejects with `MfaNeeded` when the
 * password was right and a code (or an enrolment) comes next, with the server's own message
 * when it sent one, else an i18n key.
 */
export const signIn = async (params: LoginParams): Promise<SessionUser> => {
    if ('enrolled' in params) return startSession(params.enrolled.token, params.enrolled.user);
    const { json } =
        'challenge' in params
            ? await post('/api/auth/login/mfa', { challenge: params.challenge, code: params.code })
            : await post('/api/auth/login', { email: params.email, password: params.password, role: 'admin' });
    if (json?.mfaRequired === 'code' || json?.mfaRequired === 'enroll') {
        throw new MfaNeeded(json.mfaRequired, String(json.challenge ?? ''));
    }
    return startSession(json?.token, json?.user as SessionUser | undefined);
};

export interface MfaSetup {
    secret: string;
    otpauthUri: string;
    qrCode: string;
}

/** A forced enrolment's secret (QR code as an SVG data: URI, and the key as text). */
export const enrolmentSetup = async (challenge: string): Promise<MfaSetup> => {
    const { json } = await post('/api/auth/login/mfa/setup', { challenge });
    return json as unknown as MfaSetup;
};

/** A forced enrolment confirmed with its first code: the session (not yet kept) and the
 * recovery codes to show once. */
export const enrolmentEnable = async (
    challenge: string,
    code: string,
): Promise<{ token: string; user: SessionUser; recoveryCodes: string[] }> => {
    const { json } = await post('/api/auth/login/mfa/enable', { challenge, code });
    return json as unknown as { token: string; user: SessionUser; recoveryCodes: string[] };
};
