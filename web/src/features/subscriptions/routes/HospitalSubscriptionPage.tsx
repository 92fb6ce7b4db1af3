import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Spinner } from '@/components/ui/Spinner';
import { fetchCurrentSubscription, type CurrentSubscription } from '@/lib/api/subscription';
import { ManageBillingButton, PAID_STATUSES, TestPaymentsBadge } from '../components/Badges';
import { PlanSelectionModal } from '../components/PlanSelectionModal';
import { planTone } from '../pricing';
import { useFormat } from '../useFormat';

import '../subscriptions.css';

/** /subscription for hospitals (spec §2 "Subscription Management page"). */
const HospitalSubscriptionPage = () => {
    const { t } = useTranslation('subscriptions');
    // Plan names and features come from the server in English: shown in the interface language.
    const planText = (text: string) => t(text, { defaultValue: text });
    const format = useFormat();
    const [loading, setLoading] = useState(true);
    const [current, setCurrent] = useState<CurrentSubscription | null>(null);
    const [error, setError] = useState<string | null>(null);
    const [choosing, setChoosing] = useState(false);

    const load = useCallback(async () => {
        const result = await fetchCurrentSubscription();
        if (result.ok) {
            setCurrent(result.data);
            setError(null);
        } else {
            setError(result.message);
        }
        setLoading(false);
    }, []);

    useEffect(() => {
        void load();
    }, [load]);

    const plan = current?.planId ?? null;
    const status = current?.status ?? 'inactive';
    const active = status === 'active';
    // Spec §4: 'active' reads as Active; anything else as its raw status.
    const statusText = active ? t('Active') : t(status || 'inactive');
    const billing = current?.billingCycle === 'annual' ? t('Annual') : t('Monthly');

    return (
        <main className="page sub-page">
            <header className="page-header">
                <div>
                    <h1>{t('Subscription Management')}</h1>
                    <TestPaymentsBadge />
                </div>
            </header>

            {error && (
                <Alert kind="error" onClose={() => setError(null)}>
                    <p>{t(error)}</p>
                </Alert>
            )}

            {loading ? (
                <div className="page-loading">
                    <Spinner />
                </div>
            ) : plan ? (
                <section className="card sub-current" aria-labelledby="hospital-current-plan">
                    <div className="sub-current-head">
                        <h2 id="hospital-current-plan">{t('Current Plan')}</h2>
                        {active && <span className="sub-badge sub-badge-active">{t('Active')}</span>}
                    </div>
                    <p>
                        <span className={`sub-badge sub-tone-${planTone(plan.name)}`} data-testid="plan-badge">
                            {planText(plan.name)}
                        </span>
                    </p>
                    <dl className="sub-details">
                        <div>
                            <dt>{t('Status')}</dt>
                            <dd>{statusText}</dd>
                        </div>
                        <div>
                            <dt>{t('Billing')}</dt>
                            <dd>{billing}</dd>
                        </div>
                        <div>
                            <dt>{t('Started On')}</dt>
                            <dd>{format.date(current?.startDate)}</dd>
                        </div>
                        <div>
                            <dt>{t('Renews/Expires On')}</dt>
                            <dd>{format.date(current?.endDate ?? current?.nextPaymentDate)}</dd>
                        </div>
                    </dl>
                    <h3 className="sub-subheading">{t('Key Features')}</h3>
                    {plan.features.length ? (
                        <ul className="sub-features">
                            {plan.features.map(feature => (
                                <li key={feature}>{planText(feature)}</li>
                            ))}
                        </ul>
                    ) : (
                        <p>{t('No features listed.')}</p>
                    )}
                    <div className="sub-actions">
                        <Button onClick={() => setChoosing(true)}>
                            {active ? t('Change Plan') : t('Choose New Plan')}
                        </Button>
                        {PAID_STATUSES.has(status) && <ManageBillingButton onError={setError} />}
                    </div>
                </section>
            ) : (
                <section className="card sub-none">
                    <p>{t('You do not have an active subscription plan.')}</p>
                    <Button onClick={() => setChoosing(true)}>{t('Choose a Plan')}</Button>
                </section>
            )}

            {choosing && (
                <PlanSelectionModal current={current} onClose={() => setChoosing(false)} onRefresh={() => void load()} />
            )}
        </main>
    );
};

export default HospitalSubscriptionPage;
