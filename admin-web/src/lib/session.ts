/**
 * The console's session, in this page's memory only: a short-lived access
 * token and the user. The refresh token is an HttpOnly cookie of the console's
 * own (`cara_admin_session`, separate from the clinician app's), so a reload or
 * a new tab restores the session with `renewSession()` (POST /api/auth/refresh?app=admin).
 */

export type Role = 'doctor' | 'hospital' | 'admin';

/** The user object returned by login and GET /api/auth/user (spec §3 "User"). */
export interface SessionUser {
    _id: string;
    name: string;
    email: string;
    role: Role;
    profilePicture?: string | null;
    [field: string]: unknown;
}

/** Sent with every call: sign-in then sets the refresh cookie, and refresh requires it. */
export const BROWSER_HEADER = 'X-Requested-With';
export const BROWSER_HEADER_VALUE = 'XMLHttpRequest';

// Keys an earlier version kept the session under: removed wherever they are found.
const dropLegacy = (): void => {
    try {
        localStorage.removeItem('token');
        localStorage.removeItem('user');
    } catch {
        // storage disabled: nothing stored either
    }
};
dropLegacy();

let memory: { token: string | null; user: SessionUser | null } = { token: null, user: null };
// Signed in on the login screen shown before the console loaded: the console greets the admin.
let greeting = false;

export const session = {
    token(): string | null {
        return memory.token;
    },

    user(): SessionUser | null {
        return memory.user;
    },

    save(token: string, user: SessionUser): void {
        memory = { token, user };
    },

    saveUser(user: SessionUser): void {
        memory = { ...memory, user };
    },

    greetOnArrival(): void {
        greeting = true;
    },

    /** True once after greetOnArrival(). */
    takeGreeting(): boolean {
        const pending = greeting;
        greeting = false;
        return pending;
    },

    clear(): void {
        memory = { token: null, user: null };
        dropLegacy();
    },
};

let renewing: Promise<boolean> | null = null;

/** A new access token from the console's refresh cookie; false when there is no session.
 * Concurrent callers share one request (the cookie rotates at each refresh). */
export const renewSession = (): Promise<boolean> => {
    renewing ??= (async (): Promise<boolean> => {
        try {
            const response = await fetch('/api/auth/refresh?app=admin', {
                method: 'POST',
                credentials: 'same-origin',
                headers: { [BROWSER_HEADER]: BROWSER_HEADER_VALUE },
            });
            if (!response.ok) {
                if (response.status === 401 || response.status === 403) session.clear();
                return false;
            }
            const body = (await response.json()) as { token?: unknown; user?: SessionUser };
            if (typeof body.token !== 'string' || !body.user) return false;
            session.save(body.token, body.user);
            return true;
        } catch {
            return false;
        }
    })().finally(() => {
        renewing = null;
    });
    return renewing;
};
