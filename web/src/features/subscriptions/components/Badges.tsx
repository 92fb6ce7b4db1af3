import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { openBillingPortal, verifyPaymentSetup } from '../api';

/** The visible marker that payments go to a test account or the Stripe double (issue 5 "Offline"). */
export const TestPaymentsBadge = () => {
    const { t } = useTranslation('subscriptions');
    const [testMode, setTestMode] = useState(false);
    useEffect(() => {
        let cancelled = false;
        void verifyPaymentSetup().then(result => {
            if (!cancelled && result.ok) setTestMode(result.data.testMode);
        });
        return () => {
            cancelled = true;
        };
    }, []);
    if (!testMode) return null;
    return (
        <span className="sub-badge sub-badge-test" data-testid="test-payments">
            {t('Test payments')}
        </span>
    );
};

/** Opens Stripe's Customer Portal (change card, switch plan, cancel) for a paid subscription. */
export const ManageBillingButton = ({ onError }: { onError: (message: string) => void }) => {
    const { t } = useTranslation('subscriptions');
    const [busy, setBusy] = useState(false);
    const open = async () => {
        setBusy(true);
        const result = await openBillingPortal();
        if (result.ok) {
            window.location.assign(result.data);
            return; // the page is being left: keep the button busy
        }
        setBusy(false);
        onError(result.message);
    };
    return (
        <Button variant="secondary" busy={busy} onClick={() => void open()}>
            {t('Manage billing')}
        </Button>
    );
};

/** Stripe statuses of a subscription someone pays for (a trial has no billing account yet). */
export const PAID_STATUSES: ReadonlySet<string> = new Set(['active', 'past_due', 'unpaid']);
