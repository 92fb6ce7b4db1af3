import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Modal } from '@/components/ui/Modal';
import { Spinner } from '@/components/ui/Spinner';
import { useSession } from '@/lib/session/SessionProvider';
import {
    checkoutMemory,
    createCheckoutSession,
    fetchPlans,
    verifyPaymentSetup,
    type BillingCycle,
    type CurrentSubscription,
    type Plan,
} from '../api';
import { annualSavings, priceFor } from '../pricing';
import { useFormat } from '../useFormat';

import '../subscriptions.css';

/**
 * The hospital's plan selection (spec §2 "Subscription Management page",
 * §4 "Hospital plan change"): payment setup is verified first, then the
 * plans; choosing one asks for confirmation, then the browser goes to the
 * provider's checkout. Renders nothing for anyone but a hospital.
 */
type Setup = { state: 'checking' } | { state: 'ready' } | { state: 'error'; message: string };

export const PlanSelectionModal = ({
    current,
    onClose,
    onRefresh,
}: {
    current: CurrentSubscription | null;
    onClose: () => void;
    onRefresh: () => void;
}) => {
    const { t } = useTranslation('subscriptions');
    // Plan names and features come from the server in English: shown in the interface language.
    const planText = (text: string) => t(text, { defaultValue: text });
    const { user } = useSession();
    const format = useFormat();
    const [setup, setSetup] = useState<Setup>({ state: 'checking' });
    const [plans, setPlans] = useState<Plan[]>([]);
    const [cycle, setCycle] = useState<BillingCycle>('monthly');
    const [chosen, setChosen] = useState<Plan | null>(null);
    const [processing, setProcessing] = useState(false);
    const [error, setError] = useState<string | null>(null);

    const prepare = useCallback(async () => {
        setSetup({ state: 'checking' });
        const verified = await verifyPaymentSetup();
        if (!verified.ok) {
            setSetup({ state: 'error', message: verified.message });
            return;
        }
        const available = await fetchPlans('hospital');
        if (!available.ok) {
            setSetup({ state: 'error', message: available.message });
            return;
        }
        setPlans(available.data);
        setSetup({ state: 'ready' });
    }, []);

    useEffect(() => {
        if (user?.role === 'hospital') void prepare();
    }, [user?.role, prepare]);

    if (user?.role !== 'hospital') return null;

    const active = current?.status === 'active';
    const isCurrent = (plan: Plan) =>
        active && current?.planId?.name === plan.name && (current?.billingCycle ?? 'monthly') === cycle;
    const period = cycle === 'annual' ? t('per year') : t('per month');

    const pay = async () => {
        if (!chosen || !user._id) {
            setError('Please select a plan and ensure you are logged in.');
            setChosen(null);
            return;
        }
        setProcessing(true);
        const result = await createCheckoutSession(chosen.name, cycle, user._id);
        if (result.ok) {
            checkoutMemory.save(user.role, cycle);
            onClose();
            onRefresh();
            window.location.assign(result.data.url);
            return;
        }
        setProcessing(false);
        setChosen(null);
        setError(result.message);
    };

    if (chosen) {
        const savings = annualSavings(chosen);
        return (
            <Modal
                title={t('Confirm Subscription Change')}
                onClose={() => setChosen(null)}
                closable={!processing}
                footer={
                    <>
                        <Button variant="secondary" disabled={processing} onClick={() => setChosen(null)}>
                            {t('Cancel')}
                        </Button>
                        <Button busy={processing} onClick={() => void pay()}>
                            {processing ? t('Processing...') : t('Proceed to Payment')}
                        </Button>
                    </>
                }
            >
                <dl className="sub-details">
                    <div>
                        <dt>{t('Plan')}</dt>
                        <dd>{planText(chosen.name)}</dd>
                    </div>
                    <div>
                        <dt>{t('Cost')}</dt>
                        <dd>
                            {format.price(priceFor(chosen, cycle))} {period}
                        </dd>
                    </div>
                    {cycle === 'annual' && savings > 0 && (
                        <div>
                            <dt>{t('Savings')}</dt>
                            <dd>{t('Save {{amount}} per year', { amount: format.price(savings) })}</dd>
                        </div>
                    )}
                </dl>
                {chosen.features.length > 0 && (
                    <>
                        <h3 className="sub-subheading">{t('Key Features')}</h3>
                        <ul className="sub-features">
                            {chosen.features.map(feature => (
                                <li key={feature}>{planText(feature)}</li>
                            ))}
                        </ul>
                    </>
                )}
            </Modal>
        );
    }

    return (
        <Modal
            title={t('Choose Your Subscription Plan')}
            onClose={onClose}
            wide
            footer={
                <Button variant="secondary" onClick={onClose} data-testid="plans-cancel">
                    {t('Cancel')}
                </Button>
            }
        >
            {setup.state === 'checking' && (
                <div className="page-loading">
                    <Spinner />
                </div>
            )}
            {setup.state === 'error' && (
                <Alert kind="error" title={t('Payment System Error')}>
                    <p>{t(setup.message)}</p>
                    <Button variant="secondary" onClick={() => void prepare()}>
                        {t('Retry Configuration')}
                    </Button>
                </Alert>
            )}
            {setup.state === 'ready' && (
                <>
                    {error && (
                        <Alert kind="error" onClose={() => setError(null)}>
                            <p>{t(error)}</p>
                        </Alert>
                    )}
                    <div className="sub-switch-row">
                        <label className="sub-switch">
                            <input
                                type="checkbox"
                                role="switch"
                                checked={cycle === 'annual'}
                                onChange={event => setCycle(event.target.checked ? 'annual' : 'monthly')}
                            />
                            <span className="sub-switch-track" aria-hidden="true" />
                            <span>{cycle === 'annual' ? t('Annual Billing') : t('Monthly Billing')}</span>
                        </label>
                        <small className="field-hint">{t('Save up to 20% with annual billing')}</small>
                    </div>
                    {plans.length === 0 ? (
                        <p className="sub-empty">{t('No subscription plans available at this moment.')}</p>
                    ) : (
                        <ul className="sub-grid" aria-label={t('Subscription plans')}>
                            {plans.map(plan => {
                                const savings = annualSavings(plan);
                                const currentOne = isCurrent(plan);
                                const limit =
                                    plan.maxDoctors != null
                                        ? t('Up to {{limit}} doctors', { limit: plan.maxDoctors })
                                        : null;
                                // Seeded features often repeat the limit line: show it once.
                                const features = plan.features.filter(feature => feature !== `Up to ${plan.maxDoctors} doctors`);
                                return (
                                    <li key={plan._id} className="card sub-plan" data-testid="plan-card">
                                        <h3 className="sub-plan-name">{planText(plan.name)}</h3>
                                        <p className="sub-plan-price">
                                            <span data-testid="plan-price">{format.price(priceFor(plan, cycle))}</span>{' '}
                                            <span className="sub-plan-period">{period}</span>
                                        </p>
                                        {cycle === 'annual' && savings > 0 && (
                                            <p className="sub-badge sub-badge-save" data-testid="savings">
                                                {t('Save {{amount}} per year', { amount: format.price(savings) })}
                                            </p>
                                        )}
                                        {limit && <p className="sub-plan-limit">{limit}</p>}
                                        <ul className="sub-features">
                                            {features.map(feature => (
                                                <li key={feature}>{planText(feature)}</li>
                                            ))}
                                        </ul>
                                        <Button
                                            className="btn-block"
                                            variant={currentOne ? 'secondary' : 'primary'}
                                            disabled={currentOne || processing}
                                            onClick={() => setChosen(plan)}
                                        >
                                            {processing ? t('Processing...') : currentOne ? t('Current Plan') : t('Select Plan')}
                                        </Button>
                                    </li>
                                );
                            })}
                        </ul>
                    )}
                </>
            )}
        </Modal>
    );
};
