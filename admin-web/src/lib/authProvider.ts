import { type AuthProvider, type UserIdentity } from 'react-admin';
import { signIn, type LoginParams } from '../login/signIn';
import { API_URL, httpClient, httpStatus } from './http';
import { renewSession, session, type SessionUser } from './session';

export { LOGIN_FAILED, LOGIN_NO_TOKEN } from '../login/signIn';

/**
 * Anyone who is not a platform admin is sent to the role selection page of the
 * main web app (spec: "Non-admin or missing user is sent to /"). The stored
 * session is dropped so the admin console never runs with a doctor's or a
 * hospital's token. The returned promise never settles: the page is unloading.
 */
const leaveToRoleSelection = (): Promise<never> => {
    session.clear();
    window.location.href = '/';
    return new Promise<never>(() => undefined);
};

const toIdentity = (user: SessionUser): UserIdentity => ({
    id: user._id,
    fullName: user.name,
    avatar: user.profilePicture ?? undefined,
    email: user.email,
});

export const authProvider: AuthProvider = {
    async login(params: LoginParams) {
        await signIn(params);
    },

    async logout() {
        const token = session.token();
        if (token) {
            // Revoke the token server-side; signing out locally must work even if this fails.
            await httpClient(`${API_URL}/auth/logout`, { method: 'POST' }).catch(() => undefined);
        }
        session.clear();
    },

    async checkAuth() {
        // A reload or a new tab: the session comes back from the console's refresh cookie.
        if (!session.token() && !(await renewSession())) throw new Error('ra.auth.auth_check_error');
        const user = session.user();
        // A stored non-admin user (signed in to the main web app) never sees the console.
        if (user && user.role !== 'admin') return leaveToRoleSelection();
    },

    async checkError(error: unknown) {
        const status = httpStatus(error);
        if (status === 401) {
            session.clear();
            throw new Error('ra.notification.logged_out');
        }
        // 403 and everything else: stay signed in; the screen shows the error.
    },

    async getIdentity() {
        const { json } = await httpClient(`${API_URL}/auth/user`);
        const user = json as SessionUser;
        if (!user || user.role !== 'admin') return leaveToRoleSelection();
        session.saveUser(user);
        return toIdentity(user);
    },
};
