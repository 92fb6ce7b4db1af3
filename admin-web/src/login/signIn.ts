import { BROWSER_HEADER, BROWSER_HEADER_VALUE, session, type SessionUser } from '../lib/session';

/** i18n keys of the login failures (spec §5 and §8); the page translates them. */
export const LOGIN_FAILED = 'cara.login.failed';
export const LOGIN_NO_TOKEN = 'cara.login.no_token';

export interface LoginParams {
    email: string;
    password: string;
}

/**
 * POST /api/auth/login as an admin, with plain fetch: the login screen is
 * loaded before react-admin (whose code comes after sign-in), so this module
 * must not import it. The browser header makes the server start a session
 * (HttpOnly refresh cookie); the access token stays in memory (lib/session).
 * Rejects with the server's own message when it sent one, else an i18n key.
 */
export const signIn = async ({ email, password }: LoginParams): Promise<SessionUser> => {
    let response: Response;
    try {
        response = await fetch('/api/auth/login', {
            method: 'POST',
            credentials: 'same-origin',
            headers: {
                Accept: 'application/json',
                'Content-Type': 'application/json',
                [BROWSER_HEADER]: BROWSER_HEADER_VALUE,
            },
            body: JSON.stringify({ email, password, role: 'admin' }),
        });
    } catch {
        throw new Error(LOGIN_FAILED);
    }
    const json = (await response.json().catch(() => null)) as {
        token?: unknown;
        user?: SessionUser;
        message?: unknown;
    } | null;
    if (!response.ok) {
        // The server's own text when it sent one (wrong password, throttled...).
        const message = typeof json?.message === 'string' && json.message.trim() ? json.message : LOGIN_FAILED;
        throw new Error(message);
    }
    if (typeof json?.token !== 'string' || !json.token) throw new Error(LOGIN_NO_TOKEN);
    if (!json.user || json.user.role !== 'admin') throw new Error(LOGIN_FAILED);
    session.save(json.token, json.user);
    return json.user;
};
