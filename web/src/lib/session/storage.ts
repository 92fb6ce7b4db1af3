import type { components } from '../api/schema';

/**
 * Where the session lives: in this page's memory only. The access token lives
 * minutes; the refresh token that renews it is an HttpOnly cookie page script
 * cannot read (`cara_session`, the admin console has its own), so a reload or
 * a new tab restores the session with `renewSession()` (POST /api/auth/refresh).
 * Nothing of the session is in localStorage or sessionStorage: no token, ever.
 *
 * Offline: the signed-in user's profile (who they are, their role and specialty, not a
 * credential) is remembered under localStorage `cara.offlineUser`, so a doctor who signed in
 * on this device can open the app and the consoles when the server cannot be reached (and
 * record, see features/consoles/capture). The API is reached again only with a renewed token;
 * the profile is forgotten at sign-out and whenever the server refuses the session.
 */
export type SessionUser = components['schemas']['UserOut'];
export type Role = SessionUser['role'];

/** The header the API asks of the browser apps: sign-in then sets the refresh cookie, and the
 * refresh endpoint refuses a call without it (no cross-site form can send it). */
export const BROWSER_HEADER = 'X-Requested-With';
export const BROWSER_HEADER_VALUE = 'XMLHttpRequest';

// Keys an earlier version kept the session under: removed wherever they are found.
const LEGACY_KEYS = ['token', 'user'];
const dropLegacy = (): void => {
    try {
        for (const key of LEGACY_KEYS) localStorage.removeItem(key);
    } catch {
        // storage disabled (private mode): nothing stored either
    }
};
dropLegacy();

const OFFLINE_USER_KEY = 'cara.offlineUser';
const offlineProfile = {
    remember(user: SessionUser): void {
        try {
            localStorage.setItem(OFFLINE_USER_KEY, JSON.stringify(user));
        } catch {
            // storage disabled or full: the app then needs the server to open
        }
    },
    recall(): SessionUser | null {
        try {
            const raw = localStorage.getItem(OFFLINE_USER_KEY);
            const user = raw ? (JSON.parse(raw) as SessionUser) : null;
            return user && typeof user.role === 'string' ? user : null;
        } catch {
            return null;
        }
    },
    forget(): void {
        try {
            localStorage.removeItem(OFFLINE_USER_KEY);
        } catch {
            // nothing stored either
        }
    },
};

let memory: { token: string | null; user: SessionUser | null } = { token: null, user: null };

export const sessionStore = {
    token: (): string | null => memory.token,
    user: (): SessionUser | null => memory.user,
    /** True while the user is the remembered one of an offline start (no token yet). */
    offline: (): boolean => memory.user !== null && memory.token === null,
    save(token: string, user: SessionUser): void {
        memory = { token, user };
        offlineProfile.remember(user);
    },
    saveUser(user: SessionUser): void {
        memory = { ...memory, user };
        offlineProfile.remember(user);
    },
    clear(): void {
        memory = { token: null, user: null };
        offlineProfile.forget();
        dropLegacy();
    },
};

let renewing: Promise<boolean> | null = null;

/**
 * A new access token (and the user) from the refresh cookie; false when there is
 * no session to restore. Calls made at the same moment share one request: the
 * cookie rotates at each refresh.
 */
const refreshFrom = (app: 'web' | 'admin'): Promise<Response> =>
    fetch(`${import.meta.env.VITE_API_URL ?? ''}/api/auth/refresh?app=${app}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { [BROWSER_HEADER]: BROWSER_HEADER_VALUE },
    });

/** Settles once the refresh in flight, if any, has: a sign-in waits for it, so that its
 * answer (the previous session's rotated cookie) cannot land after the new session's. */
export const renewalSettled = (): Promise<unknown> => renewing ?? Promise.resolve();

export const renewSession = (): Promise<boolean> => {
    renewing ??= (async (): Promise<boolean> => {
        try {
            let response = await refreshFrom('web');
            // An admin who signed in at /admin-login holds the admin console's cookie only;
            // the spec gives admins this app's /profile and /admin-dashboard too.
            if (response.status === 204) response = await refreshFrom('admin');
            if (!response.ok || response.status === 204) {
                // 204: no session cookie (signed out); 401/403: the session is over.
                if (response.status === 204 || response.status === 401 || response.status === 403) sessionStore.clear();
                return false;
            }
            const body = (await response.json()) as { token?: unknown; user?: SessionUser };
            if (typeof body.token !== 'string' || !body.user) return false;
            sessionStore.save(body.token, body.user);
            return true;
        } catch {
            // Offline, or the page is being left: the user who signed in here before, if any,
            // without a token (sessionStore.offline()); the next renewal online replaces them.
            const remembered = memory.user === null ? offlineProfile.recall() : null;
            if (remembered) {
                memory = { token: null, user: remembered };
                return true;
            }
            return false;
        }
    })().finally(() => {
        renewing = null;
    });
    return renewing;
};

/** Seconds until the access token's expiry (its `exp` claim), or 0 when unknown. */
export const secondsLeft = (token: string): number => {
    try {
        const part = token.split('.')[1] ?? '';
        const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
        const exp = (JSON.parse(json) as { exp?: unknown }).exp;
        return typeof exp === 'number' ? exp - Date.now() / 1000 : 0;
    } catch {
        return 0;
    }
};

/**
 * The access token, renewed first when it has under a minute left: for a token
 * handed over outside the HTTP client (the live assistant's socket, uploads).
 */
export const freshToken = async (): Promise<string | null> => {
    const token = sessionStore.token();
    if (token && secondsLeft(token) > 60) return token;
    await renewSession();
    return sessionStore.token();
};
