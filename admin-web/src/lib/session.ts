/**
 * The session shared with the doctors' and hospitals' web app: both apps live
 * on the same origin and keep the bearer token and the signed-in user under
 * the same localStorage keys, so signing out of one signs out of the other.
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

const TOKEN_KEY = 'token';
const USER_KEY = 'user';

export const session = {
    token(): string | null {
        return localStorage.getItem(TOKEN_KEY);
    },

    user(): SessionUser | null {
        const raw = localStorage.getItem(USER_KEY);
        if (!raw) return null;
        try {
            const parsed: unknown = JSON.parse(raw);
            return parsed && typeof parsed === 'object' ? (parsed as SessionUser) : null;
        } catch {
            return null;
        }
    },

    save(token: string, user: SessionUser): void {
        localStorage.setItem(TOKEN_KEY, token);
        localStorage.setItem(USER_KEY, JSON.stringify(user));
    },

    saveUser(user: SessionUser): void {
        localStorage.setItem(USER_KEY, JSON.stringify(user));
    },

    clear(): void {
        localStorage.removeItem(TOKEN_KEY);
        localStorage.removeItem(USER_KEY);
    },
};
