import { useEffect } from 'react';
import { Navigate } from 'react-router';

import { FullScreenSpinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';

/**
 * /admin-dashboard (spec §2) is the react-admin console, a separate app on
 * this origin sharing the session keys: admins are handed over to it, anyone
 * else goes to role selection.
 */
const AdminDashboardRedirect = () => {
    const { user } = useSession();
    const isAdmin = user?.role === 'admin';
    useEffect(() => {
        if (isAdmin) window.location.replace(paths.adminConsole);
    }, [isAdmin]);
    if (!isAdmin) return <Navigate to={paths.roleSelection} replace />;
    return <FullScreenSpinner />;
};

export default AdminDashboardRedirect;
