import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Spinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import { useClinicalAccess } from '@/lib/gating';
import { useSession } from '@/lib/session/SessionProvider';

/**
 * Clinical pages need a subscription (spec §2, §6). Without one the doctor
 * goes to /doctor-subscription, keeping where they came from and replacing
 * history; a failed check does the same. Hospital-created doctors whose
 * hospital is not subscribed see the facility message instead.
 */
export const SubscriptionGate = ({ children }: { children: ReactNode }) => {
    const { t } = useTranslation();
    const { user } = useSession();
    const location = useLocation();
    const access = useClinicalAccess(user);
    if (!user || user.role !== 'doctor') return <>{children}</>;
    switch (access.state) {
        case 'checking':
            return (
                <div className="page-loading">
                    <Spinner />
                </div>
            );
        case 'allowed':
            return <>{children}</>;
        case 'facility-inactive':
            return (
                <main className="page page-narrow">
                    <Alert kind="warning" title={t('Facility Subscription Inactive')}>
                        <p>
                            {t(
                                "Access to this feature is currently unavailable because your associated hospital's subscription is not active. Please contact your hospital administrator.",
                            )}
                        </p>
                    </Alert>
                </main>
            );
        default:
            return <Navigate to={paths.doctorSubscription} replace state={{ from: location }} />;
    }
};
