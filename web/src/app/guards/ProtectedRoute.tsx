import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import type { Role } from '@/lib/session/storage';

/**
 * Spec §2 "Protected routes": 'Loading...' while the user loads, no user →
 * role selection, a role outside `roles` → the 'Access Restricted' warning.
 * The API checks role and tenant on every call; this only spares users a
 * page they cannot use.
 */
export const ProtectedRoute = ({ roles, children }: { roles?: readonly Role[]; children: ReactNode }) => {
    const { t } = useTranslation();
    const { user, loading } = useSession();
    if (loading) return <p className="page-loading">{t('Loading...')}</p>;
    if (!user) return <Navigate to={paths.roleSelection} replace />;
    if (roles && !roles.includes(user.role)) {
        return (
            <main className="page page-narrow">
                <Alert kind="warning" title={t('Access Restricted')}>
                    <p>{t('You do not have permission to access this page.')}</p>
                </Alert>
            </main>
        );
    }
    return <>{children}</>;
};

/** Pages only one role may see; others are sent to role selection (spec §6). */
export const RoleRedirect = ({ role, children }: { role: Role; children: ReactNode }) => {
    const { t } = useTranslation();
    const { user, loading } = useSession();
    if (loading) return <p className="page-loading">{t('Loading...')}</p>;
    if (!user || user.role !== role) return <Navigate to={paths.roleSelection} replace />;
    return <>{children}</>;
};
