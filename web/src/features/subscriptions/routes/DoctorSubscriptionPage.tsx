import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Modal } from '@/components/ui/Modal';
import { Spinner } from '@/components/ui/Spinner';
import { useToast } from '@/components/ui/Toasts';
import { paths } from '@/config/paths';
import { fetchCurrentSubscription, type CurrentSubscription } from '@/lib/api/subscription';
import { useClinicalAccess } from '@/lib/gating';
import { useSession } from '@/lib/session/SessionProvider';
import { checkoutMemory, createCheckoutSession, fetchPlans, type BillingCycle, type Plan } from '../api';
import { ManageBillingButton, PAID_STATUSES, TestPaymentsBadge } from '../components/Badges';
import { CycleToggle } from '../components/CycleToggle';
import { priceFor } from '../pricing';
import { useFormat } from '../useFormat';

import '../subscriptions.css';

/** /doctor-subscription (spec §2 "Doctor subscription page", §4 "Doctor checkout"). */
const NO_PLAN = 'No Plan';

const DoctorSubscriptionPage = () => {
    const { t } = useTranslation('subscriptions');
    // Plan names and features come from the server in English: shown in the interface language.
    const planText = (text: string) => t(text, { defaultValue: text });
    const { user, signOut } = useSession();
    const notify = useToast();
    const navigate = useNavigate();
    const format = useFormat();
    // The page has no navbar (spec §2): a way back to where the doctor may go.
    const access = useClinicalAccess(user);

    const [loading, setLoading] = useState(true);
    const [current, setCurrent] = useState<CurrentSubscription | null>(null);
    const [plans, setPlans] = useState<Plan[]>([]);
    const [error, setError] = useState<string | null>(null);
    const [cycle, setCycle] = useState<BillingCycle>(() => checkoutMemory.cycle());
    const [selected, setSelected] = useState<Plan | null>(null);
    const [processing, setProcessing] = useState<string | null>(null);

    const load = useCallback(async () => {
        setLoading(true);
        const [subscription, available] = await Promise.all([fetchCurrentSubscription(), fetchPlans('doctor')]);
        if (subscription.ok) setCurrent(subscription.data);
        if (available.ok) setPlans(available.data);
        const failed = !subscription.ok ? subscription : !available.ok ? available : null;
        setError(failed ? failed.message : null);
        setLoading(false);
    }, []);

    useEffect(() => {
        if (user?.role === 'doctor') void load();
    }, [user?.role, load]);

    if (!user) return <p className="page-loading">{t('Please log in.')}</p>;
    if (user.role !== 'doctor') return <Navigate to={paths.roleSelection} replace />;

    const status = current?.status ?? 'inactive';
    const planName = current?.planId?.name;
    const active = status === 'active';
    const trialing = status === 'trialing';
    const heading = trialing ? t('Choose Your Plan') : active ? t('Change Your Plan') : t('Available Plans');
    // Lower case: the cycle sits inside a sentence ('monthly billing').
    const cycleLabel = (value: BillingCycle) => (value === 'annual' ? t('annual') : t('monthly'));

    const choose = (plan: Plan) => {
        if (!user._id) {
            setError('User not found. Please log in again.');
            return;
        }
        setSelected(plan);
    };

    const proceed = async () => {
        if (!selected || !user._id) {
            setSelected(null);
            setError('Please select a plan and ensure you are logged in.');
            return;
        }
        setProcessing(selected._id);
        const result = await createCheckoutSession(selected.name, cycle, user._id);
        if (result.ok) {
            // Remembered for the return from the payment page (spec §4).
            checkoutMemory.save(user.role, cycle);
            window.location.assign(result.data.url);
            return; // leaving the page: keep 'Processing...' until it goes
        }
        setProcessing(null);
        setSelected(null);
        setError(result.message);
    };

    const logout = async () => {
        await signOut();
        notify(t('Logged out successfully'), 'success');
        navigate(paths.roleSelection);
    };

    const buttonLabel = (plan: Plan, isCurrent: boolean) => {
        if (processing === plan._id) return t('Processing...');
        if (isCurrent) return t('Current Plan');
        if (active) return cycle === 'annual' ? t('Switch Plan (Annual)') : t('Switch Plan (Monthly)');
        return cycle === 'annual' ? t('Choose Plan (Annual)') : t('Choose Plan (Monthly)');
    };

    return (
        <main className="page sub-page">
            <header className="page-header">
                <div>
                    <h1>{heading}</h1>
                    <TestPaymentsBadge />
                </div>
                <div className="sub-header-actions">
                    {user && access.state === 'allowed' ? (
                        <Link className="btn btn-secondary" to={paths.doctorDashboard} data-testid="back-link">
                            {t('Back to dashboard')}
                        </Link>
                    ) : (
                        <Link className="btn btn-secondary" to={paths.profile} data-testid="back-link">
                            {t('My profile')}
                        </Link>
                    )}
                    <Button variant="secondary" onClick={() => void logout()}>
                        {t('Logout')}
                    </Button>
                </div>
            </header>

            {loading ? (
                <div className="page-loading">
                    <Spinner label={t('Loading subscription plans...')} />
                </div>
            ) : (
                <>
                    {error && (
                        <Alert kind="error" onClose={() => setError(null)}>
                            <p>{t(error)}</p>
                        </Alert>
                    )}

                    {trialing && (
                        <Alert kind="info" title={t('Free Trial Active')}>
                            <p>
                                {t('Your free trial ends on {{date}}. Choose a plan to keep access.', {
                                    date: format.date(current?.trialEndDate ?? current?.endDate),
                                })}
                            </p>
                        </Alert>
                    )}

                    {active && planName && planName !== NO_PLAN && (
                        <section className="card sub-current" aria-labelledby="doctor-current-plan">
                            <h2 id="doctor-current-plan">{t('Current Active Plan')}</h2>
                            <p className="sub-current-name">
                                <strong>{planText(planName)}</strong>
                                <span className="sub-badge sub-badge-active">{t('Active')}</span>
                            </p>
                            <p>
                                {t('Renews/Expires: {{date}}', {
                                    date: format.date(current?.endDate ?? current?.nextPaymentDate),
                                })}
                            </p>
                            {PAID_STATUSES.has(status) && <ManageBillingButton onError={setError} />}
                        </section>
                    )}

                    <CycleToggle value={cycle} onChange={setCycle} />

                    {plans.length === 0 ? (
                        <p className="sub-empty">{t('No subscription plans available at this moment.')}</p>
                    ) : (
                        <ul className="sub-grid" aria-label={t('Subscription plans')}>
                            {plans.map(plan => {
                                const isCurrent =
                                    active && planName === plan.name && (current?.billingCycle ?? 'monthly') === cycle;
                                return (
                                    <li key={plan._id} className="card sub-plan" data-testid="plan-card">
                                        <h3 className="sub-plan-name">{planText(plan.name)}</h3>
                                        <p className="sub-plan-price">
                                            <span data-testid="plan-price">{format.price(priceFor(plan, cycle))}</span>{' '}
                                            <span className="sub-plan-period">
                                                {cycle === 'annual' ? t('per year') : t('per month')}
                                            </span>
                                        </p>
                                        <ul className="sub-features">
                                            {plan.features.map(feature => (
                                                <li key={feature}>{planText(feature)}</li>
                                            ))}
                                        </ul>
                                        <Button
                                            className="btn-block"
                                            variant={isCurrent ? 'secondary' : 'primary'}
                                            disabled={isCurrent || processing !== null}
                                            onClick={() => choose(plan)}
                                        >
                                            {buttonLabel(plan, isCurrent)}
                                        </Button>
                                    </li>
                                );
                            })}
                        </ul>
                    )}
                </>
            )}

            {selected && (
                <Modal
                    title={t('Confirm Subscription')}
                    onClose={() => setSelected(null)}
                    closable={processing === null}
                    footer={
                        <>
                            <Button
                                variant="secondary"
                                disabled={processing !== null}
                                onClick={() => setSelected(null)}
                            >
                                {t('Cancel')}
                            </Button>
                            <Button busy={processing !== null} onClick={() => void proceed()}>
                                {processing !== null ? t('Processing...') : t('Proceed to Checkout')}
                            </Button>
                        </>
                    }
                >
                    <p>
                        {t('Proceed to checkout for the {{plan}} plan ({{cycle}} billing)?', {
                            plan: selected.name,
                            cycle: cycleLabel(cycle),
                        })}
                    </p>
                </Modal>
            )}
        </main>
    );
};

export default DoctorSubscriptionPage;
