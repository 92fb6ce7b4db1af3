import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Spinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import { checkoutMemory, confirmCheckoutSession, type CurrentSubscription } from '../api';
import { Confetti } from '../components/Confetti';

import '../subscriptions.css';

/**
 * /subscription-success (spec §2, §4 "Doctor checkout", §9): confirm the
 * Checkout Session; while Stripe has not finished ('not yet found') retry up
 * to 4 more times after 2, 4, 6 and 8 seconds.
 */
export const MAX_RETRIES = 4;
export const RETRY_STEP_MS = 2000;
const NOT_YET = 'not yet found';

type Outcome =
    | { state: 'confirming' }
    | { state: 'done'; subscription: CurrentSubscription }
    | { state: 'failed'; message: string };

const wait = (ms: number) => new Promise(resolve => window.setTimeout(resolve, ms));

const dashboardFor = (role: string | null | undefined): string => {
    if (role === 'doctor') return paths.doctorDashboard;
    if (role === 'hospital') return paths.dashboard;
    return paths.roleSelection;
};

const SubscriptionSuccessPage = () => {
    const { t } = useTranslation('subscriptions');
    // Plan names and features come from the server in English: shown in the interface language.
    const planText = (text: string) => t(text, { defaultValue: text });
    const { user } = useSession();
    const navigate = useNavigate();
    const [params] = useSearchParams();
    const sessionId = params.get('session_id');
    const [outcome, setOutcome] = useState<Outcome>(() =>
        sessionId ? { state: 'confirming' } : { state: 'failed', message: 'Missing session ID. Cannot confirm subscription.' },
    );

    useEffect(() => {
        if (!sessionId) return;
        let cancelled = false;
        const run = async () => {
            for (let attempt = 0; ; attempt++) {
                const result = await confirmCheckoutSession(sessionId);
                if (cancelled) return;
                if (result.ok) {
                    checkoutMemory.clearCycle(); // spec §4: kept only during checkout
                    setOutcome({ state: 'done', subscription: result.data });
                    return;
                }
                if (!result.message.toLowerCase().includes(NOT_YET) || attempt >= MAX_RETRIES) {
                    setOutcome({ state: 'failed', message: result.message });
                    return;
                }
                await wait(RETRY_STEP_MS * (attempt + 1));
                if (cancelled) return;
            }
        };
        void run();
        return () => {
            cancelled = true;
        };
    }, [sessionId]);

    const goToDashboard = () => {
        const role = checkoutMemory.role() ?? user?.role;
        checkoutMemory.clearRole();
        navigate(dashboardFor(role), { replace: true });
    };

    const dashboardButton = (
        <Button className="btn-block" onClick={goToDashboard}>
            {t('Go to Dashboard')}
        </Button>
    );

    if (outcome.state === 'confirming') {
        return (
            <main className="page sub-success">
                <div className="card sub-success-card">
                    <Spinner label={t('Confirming your subscription...')} />
                    <h1>{t('Confirming your subscription...')}</h1>
                </div>
            </main>
        );
    }

    if (outcome.state === 'failed') {
        return (
            <main className="page sub-success">
                <div className="card sub-success-card">
                    <h1>{t('Confirmation Failed')}</h1>
                    <Alert kind="error">
                        <p>{t(outcome.message)}</p>
                    </Alert>
                    {dashboardButton}
                </div>
            </main>
        );
    }

    const { subscription } = outcome;
    const active = subscription.status === 'active';
    const planName = subscription.planId?.name;
    return (
        <main className="page sub-success">
            {active && <Confetti />}
            <div className="card sub-success-card">
                {active ? (
                    <>
                        <h1>{t('Subscription Activated!')}</h1>
                        {planName && <p>{t('Your {{plan}} plan is now active.', { plan: planText(planName) })}</p>}
                    </>
                ) : (
                    <>
                        <h1>{t('Payment Successful!')}</h1>
                        <p>{t('Your subscription details are being updated. Please check your dashboard shortly.')}</p>
                    </>
                )}
                {!planName && (
                    <Alert kind="warning">
                        <p>{t('Could not retrieve subscription details after confirmation.')}</p>
                    </Alert>
                )}
                {dashboardButton}
            </div>
        </main>
    );
};

export default SubscriptionSuccessPage;
