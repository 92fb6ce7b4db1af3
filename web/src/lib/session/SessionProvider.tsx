import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';

import { api } from '../api/client';
import { sessionStore, type SessionUser } from './storage';

interface SessionValue {
    user: SessionUser | null;
    /** True until the stored token has been checked against GET /api/auth/user. */
    loading: boolean;
    signIn: (token: string, user: SessionUser) => void;
    /** Revokes the token on the server (best effort) and forgets it here. */
    signOut: () => Promise<void>;
    updateUser: (user: SessionUser) => void;
}

const SessionContext = createContext<SessionValue | null>(null);

/** Spec §4 "Session": the stored token is checked on load; a refused token is cleared. */
export const SessionProvider = ({ children }: { children: ReactNode }) => {
    const [user, setUser] = useState<SessionUser | null>(null);
    const [loading, setLoading] = useState(true);

    useEffect(() => {
        let cancelled = false;
        if (!sessionStore.token()) {
            setLoading(false);
            return;
        }
        api.GET('/api/auth/user')
            .then(({ data, response }) => {
                if (cancelled) return;
                if (data) {
                    sessionStore.saveUser(data);
                    setUser(data);
                } else if (response.status === 401 || response.status === 403) {
                    // The server refused the token (expired, revoked, account disabled).
                    sessionStore.clear();
                    setUser(null);
                } else {
                    // A server hiccup is not a sign-out: keep the stored user; the
                    // next call that gets a 401 ends the session.
                    setUser(sessionStore.user());
                }
            })
            .catch(() => {
                // Network failure, or the page is being left mid-request.
                if (!cancelled) setUser(sessionStore.user());
            })
            .finally(() => {
                if (!cancelled) setLoading(false);
            });
        return () => {
            cancelled = true;
        };
    }, []);

    const signIn = useCallback((token: string, next: SessionUser) => {
        sessionStore.save(token, next);
        setUser(next);
    }, []);

    const signOut = useCallback(async () => {
        if (sessionStore.token()) {
            // Revoke server-side; the local session ends whatever the answer.
            await api.POST('/api/auth/logout').catch(() => undefined);
        }
        sessionStore.clear();
        setUser(null);
    }, []);

    const updateUser = useCallback((next: SessionUser) => {
        sessionStore.saveUser(next);
        setUser(next);
    }, []);

    const value = useMemo(
        () => ({ user, loading, signIn, signOut, updateUser }),
        [user, loading, signIn, signOut, updateUser],
    );
    return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
};

export const useSession = (): SessionValue => {
    const value = useContext(SessionContext);
    if (!value) throw new Error('useSession must be used within a SessionProvider');
    return value;
};
