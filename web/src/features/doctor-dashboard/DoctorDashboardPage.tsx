import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { MicIcon, SummaryIcon, TranscriptIcon } from '@/components/ui/icons';
import { paths, specialtyPath } from '@/config/paths';
import { fetchCurrentSubscription, type CurrentSubscription } from '@/lib/api/subscription';
import { formatLongDate } from '@/lib/format';
import { isHospitalCreatedDoctor, useClinicalAccess } from '@/lib/gating';
import { useSession } from '@/lib/session/SessionProvider';

import './doctor-dashboard.css';

/**
 * /doctor-dashboard (spec §2 "Protected routes"): a welcome, the doctor's
 * subscription card with the way to manage or choose a plan, and the Quick
 * Actions: the doctor's consultations and their assistant console.
 */
const NO_PLAN = 'No Plan';

type Load = { state: 'loading' } | { state: 'loaded'; data: CurrentSubscription } | { state: 'failed' };

/** Status labels; an unknown status shows as sent. */
const STATUS_LABELS: Record<string, string> = {
    active: 'Active',
    trialing: 'Trialing',
    past_due: 'Past Due',
    unpaid: 'Unpaid',
    canceled: 'Canceled',
    incomplete: 'Incomplete',
    incomplete_expired: 'Expired',
    inactive: 'Inactive',
};

const DoctorDashboardPage = () => {
    // subscriptions: the plan names' translations.
    const { t, i18n } = useTranslation(['doctor', 'subscriptions']);
    const { user } = useSession();
    const [load, setLoad] = useState<Load>({ state: 'loading' });
    // A hospital-created doctor's plan is their hospital's: its status, not their own (empty) subscription.
    const facility = useClinicalAccess(user);

    const refresh = useCallback(async () => {
        setLoad({ state: 'loading' });
        const result = await fetchCurrentSubscription();
        setLoad(result.ok ? { state: 'loaded', data: result.data } : { state: 'failed' });
    }, []);

    useEffect(() => {
        void refresh();
    }, [refresh]);

    if (!user) return null; // the route's guard sends visitors away first
    const viaHospital = isHospitalCreatedDoctor(user);

    const language = i18n.resolvedLanguage ?? 'en';
    const date = (value: string | null | undefined) => {
        const text = formatLongDate(value, language);
        if (text === null) return t('Not set');
        if (text === 'invalid') return t('Invalid date');
        return text;
    };

    const subscription = load.state === 'loaded' ? load.data : null;
    const status = subscription?.status || 'inactive';
    const active = status === 'active';
    const planName = subscription?.planId?.name || NO_PLAN;
    const cycle = subscription?.billingCycle;
    const renewal =
        status === 'trialing'
            ? (subscription?.trialEndDate ?? subscription?.endDate)
            : (subscription?.nextPaymentDate ?? subscription?.endDate);
    const statusLabel = STATUS_LABELS[status] ? t(STATUS_LABELS[status]) : status;

    return (
        <main className="page dd-page">
            <header className="dd-header">
                <h1>{t('Welcome, Dr. {{name}}', { name: user.name })}</h1>
                {user.specialty && <p className="dd-subtitle">{t(user.specialty)}</p>}
            </header>

            <div className="dd-grid">
                <section className="card dd-card dd-subscription" aria-labelledby="dd-subscription-heading">
                    <h2 id="dd-subscription-heading">{t('Subscription')}</h2>
                    {load.state === 'loading' && (
                        <p className="dd-loading" role="status">
                            <span className="spinner" aria-hidden="true" />
                            {t('Loading subscription details...')}
                        </p>
                    )}
                    {load.state === 'failed' && (
                        <Alert kind="warning" title={t('Subscription Error:')}>
                            <p>{t('Failed to load subscription details')}</p>
                            <Button variant="secondary" className="dd-retry" onClick={() => void refresh()}>
                                {t('Try again')}
                            </Button>
                        </Alert>
                    )}
                    {viaHospital && load.state !== 'loading' && (
                        <>
                            <p className="dd-plan-label">{t("Your hospital's plan")}</p>
                            <div className="dd-plan">
                                <span className="dd-plan-name" data-testid="plan-name">
                                    {'planName' in facility && facility.planName
                                        ? t(facility.planName, { ns: 'subscriptions', defaultValue: facility.planName })
                                        : t('No Plan')}
                                </span>
                                {'status' in facility && (
                                    <span
                                        className={`dd-status dd-status-${facility.state === 'allowed' ? 'active' : 'other'}`}
                                        data-testid="plan-status"
                                    >
                                        {STATUS_LABELS[facility.status] ? t(STATUS_LABELS[facility.status]) : facility.status}
                                    </span>
                                )}
                            </div>
                            <p className="dd-note">{t("Your access is provided by your hospital's subscription.")}</p>
                        </>
                    )}
                    {subscription && !viaHospital && (
                        <>
                            <div className="dd-plan">
                                <span className="dd-plan-name" data-testid="plan-name">
                                    {planName === NO_PLAN ? t('No Plan') : planName}
                                </span>
                                <span
                                    className={`dd-status dd-status-${active ? 'active' : status === 'trialing' ? 'trial' : 'other'}`}
                                    data-testid="plan-status"
                                >
                                    {statusLabel}
                                </span>
                            </div>
                            <dl className="dd-details">
                                <div>
                                    <dt>{t('Billing Cycle')}</dt>
                                    <dd data-testid="billing-cycle">
                                        {cycle === 'annual' ? t('Annual') : cycle === 'monthly' ? t('Monthly') : t('Not set')}
                                    </dd>
                                </div>
                                <div>
                                    <dt>{status === 'trialing' ? t('Trial ends') : t('Renews/Expires')}</dt>
                                    <dd data-testid="renewal-date">{date(renewal)}</dd>
                                </div>
                            </dl>
                        </>
                    )}
                    {load.state !== 'loading' && !viaHospital && (
                        <Link
                            to={paths.doctorSubscription}
                            className={`btn ${active ? 'btn-secondary' : 'btn-primary'} dd-plan-action`}
                        >
                            {active ? t('Manage Plan') : t('Choose Plan')}
                        </Link>
                    )}
                </section>

                <section className="card dd-card dd-actions" aria-labelledby="dd-actions-heading">
                    <h2 id="dd-actions-heading">{t('Quick Actions')}</h2>
                    <ul className="dd-action-list">
                        {[
                            {
                                id: 'consultations',
                                to: paths.consultations,
                                label: t('Consultations'),
                                hint: t('Review transcripts, edit and sign notes'),
                                icon: <TranscriptIcon size={22} />,
                            },
                            ...(user.specialty
                                ? [
                                      {
                                          id: 'console',
                                          to: specialtyPath(user.specialty),
                                          label: t('Start a consultation'),
                                          hint: t('Open your assistant console'),
                                          icon: <MicIcon size={22} />,
                                      },
                                  ]
                                : []),
                            {
                                id: 'assistant',
                                to: paths.assistant,
                                label: t('General assistant'),
                                hint: t('Summaries and report drafts with a focus topic'),
                                icon: <SummaryIcon size={22} />,
                            },
                        ].map(action => (
                            <li key={action.id}>
                                <Link to={action.to} className="dd-action" data-testid={`quick-action-${action.id}`}>
                                    <span className="dd-action-icon" aria-hidden="true">
                                        {action.icon}
                                    </span>
                                    <span className="dd-action-label">{action.label}</span>
                                    <span className="dd-action-hint">{action.hint}</span>
                                </Link>
                            </li>
                        ))}
                    </ul>
                </section>
            </div>
        </main>
    );
};

export default DoctorDashboardPage;
