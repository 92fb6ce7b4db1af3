import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';

import { api } from '../api/client';
import { renewSession, sessionStore, type SessionUser } from './storage';

interface SessionValue {
    user: SessionUser | null;
    /** True until the session has been restored (or not) from the refresh cookie. */
    loading: boolean;
    signIn: (token: string, user: SessionUser) => void;
    /** Revokes the token on the server (best effort) and forgets it here. */
    signOut: () => Promise<void>;
    updateUser: (user: SessionUser) => void;
}

const SessionContext = createContext<SessionValue | null>(null);

/** Spec §4 "Session": on load the session is restored from the HttpOnly refresh cookie
 * (POST /api/auth/refresh); without one, or when it is refused, nobody is signed in. */
export const SessionProvider = ({ children }: { children: ReactNode }) => {
    const [user, setUser] = useState<SessionUser | null>(null);
    const [loading, setLoading] = useState(true);
    // A sign-in on an entry page (drawn before the restore ends) wins over the restore's answer.
    const signedIn = useRef(false);

    useEffect(() => {
        let cancelled = false;
        renewSession()
            .then(ok => {
                if (!cancelled && !signedIn.current) setUser(ok ? sessionStore.user() : null);
            })
            .finally(() => {
                if (!cancelled) setLoading(false);
            });
        return () => {
            cancelled = true;
        };
    }, []);

    // Opened offline (the remembered user, no token): the session is renewed when the browser
    // is online again, and ends there if the server refuses it.
    useEffect(() => {
        const renew = (): void => {
            if (!sessionStore.offline()) return;
            void renewSession().then(() => {
                if (!signedIn.current) setUser(sessionStore.user());
            });
        };
        window.addEventListener('online', renew);
        return () => window.removeEventListener('online', renew);
    }, []);

    const signIn = useCallback((token: string, next: SessionUser) => {
        signedIn.current = true;
        sessionStore.save(token, next);
        setUser(next);
    }, []);

    const signOut = useCallback(async () => {
        if (sessionStore.token()) {
            // Revoke server-side (the session and its cookie); the local session ends whatever the answer.
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
