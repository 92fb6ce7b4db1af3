import type { Role } from '@/lib/session/storage';

/**
 * 'Remember me' keeps only the email address, per role, for the next visit
 * to that login form. The session token stays where the session code puts
 * it; no password is ever stored.
 */
const key = (role: Role) => `rememberedEmail:${role}`;

export const rememberedEmail = {
    get(role: Role): string | null {
        try {
            return localStorage.getItem(key(role));
        } catch {
            return null; // storage disabled: nothing remembered
        }
    },
    set(role: Role, email: string | null): void {
        try {
            if (email) localStorage.setItem(key(role), email);
            else localStorage.removeItem(key(role));
        } catch {
            // storage disabled: the form simply starts empty next time
        }
    },
};
