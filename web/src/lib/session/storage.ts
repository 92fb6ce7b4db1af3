import type { components } from '../api/schema';

/**
 * Where the session lives (spec §4): the bearer token under `token` and the
 * user under `user` in localStorage. The admin console on the same origin
 * reads the same keys, so signing out of one app signs out of the other.
 */
export type SessionUser = components['schemas']['UserOut'];
export type Role = SessionUser['role'];

const TOKEN_KEY = 'token';
const USER_KEY = 'user';

const safe = <T>(work: () => T, fallback: T): T => {
    try {
        return work();
    } catch {
        return fallback; // storage disabled (private mode): the session lasts for this page
    }
};

export const sessionStore = {
    token: (): string | null => safe(() => localStorage.getItem(TOKEN_KEY), null),
    user: (): SessionUser | null =>
        safe(() => {
            const raw = localStorage.getItem(USER_KEY);
            return raw ? (JSON.parse(raw) as SessionUser) : null;
        }, null),
    save(token: string, user: SessionUser): void {
        safe(() => {
            localStorage.setItem(TOKEN_KEY, token);
            localStorage.setItem(USER_KEY, JSON.stringify(user));
        }, undefined);
    },
    saveUser(user: SessionUser): void {
        safe(() => localStorage.setItem(USER_KEY, JSON.stringify(user)), undefined);
    },
    clear(): void {
        safe(() => {
            localStorage.removeItem(TOKEN_KEY);
            localStorage.removeItem(USER_KEY);
        }, undefined);
    },
};
