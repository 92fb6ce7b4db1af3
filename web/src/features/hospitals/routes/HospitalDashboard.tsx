import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Spinner } from '@/components/ui/Spinner';
import { useToast } from '@/components/ui/Toasts';
import { paths } from '@/config/paths';
import { fetchCurrentSubscription, type CurrentSubscription } from '@/lib/api/subscription';
import { useSession } from '@/lib/session/SessionProvider';
import type { SessionUser } from '@/lib/session/storage';
import { fetchDoctors, type Doctor } from '../api';
import { AccessNotice } from '../components/AccessNotice';
import { AddDoctorButton } from '../components/AddDoctorButton';
import { DashboardAddDoctorModal } from '../components/DashboardAddDoctorModal';
import { DashboardDoctorsTable } from '../components/DoctorsTable';
import { RecordingStorageCard } from '../components/RecordingStorageCard';
import { PlanStatusBadge } from '../components/StatusBadge';
import { useDoctorLimit } from '../useDoctorLimit';

import '../hospitals.css';

/** Spec §9: the wait before a subscription refusal opens /subscription. */
export const SUBSCRIPTION_REDIRECT_MS = 500;

/**
 * /dashboard (spec §2 "Hospital Dashboard", §4 "Hospital dashboard"): the
 * hospital's doctors, then its subscription, then its doctor limit, loaded
 * in that order behind one loader. A user who is not a hospital sees the
 * page's own 'Access Restricted' notice.
 */
const HospitalDashboard = () => {
    const { t } = useTranslation('hospitals');
    const { user, loading } = useSession();
    if (loading) return <p className="page-loading">{t('Loading...')}</p>;
    if (!user || user.role !== 'hospital') {
        return (
            <AccessNotice
                title={t('Access Restricted')}
                message={t('Please log in as a hospital administrator to view this page.')}
            />
        );
    }
    return <Dashboard user={user} />;
};

const Dashboard = ({ user }: { user: SessionUser }) => {
    const { t } = useTranslation('hospitals');
    const notify = useToast();
    const navigate = useNavigate();
    const hospitalId = user.hospitalId ?? '';
    const headingId = useId();

    const [loading, setLoading] = useState(true);
    const [doctors, setDoctors] = useState<Doctor[]>([]);
    const [subscription, setSubscription] = useState<CurrentSubscription | null>(null);
    const { limit, recheck: checkLimit } = useDoctorLimit(hospitalId);
    const [error, setError] = useState<string | null>(null);
    const [subscriptionError, setSubscriptionError] = useState<string | null>(null);
    const [adding, setAdding] = useState(false);
    const [submitting, setSubmitting] = useState(false);
    const redirect = useRef<number | undefined>(undefined);

    useEffect(() => () => window.clearTimeout(redirect.current), []);

    useEffect(() => {
        let cancelled = false;
        const load = async () => {
            if (!hospitalId) {
                setError('Hospital ID is missing. Please log in again.');
            } else {
                const result = await fetchDoctors(hospitalId);
                if (cancelled) return;
                if (result.ok) setDoctors(result.data);
                else setError(result.message);
            }
            const current = await fetchCurrentSubscription();
            if (cancelled) return;
            if (current.ok) setSubscription(current.data);
            else setSubscriptionError('Failed to load subscription details');
            await checkLimit();
            if (!cancelled) setLoading(false);
        };
        void load();
        return () => {
            cancelled = true;
        };
    }, [hospitalId, checkLimit]);

    const onAdded = (doctor: Doctor) => {
        notify(t('Doctor {{name}} added successfully!', { name: doctor.name }), 'success');
        setAdding(false);
        setDoctors(list => [...list, doctor]);
        void checkLimit();
    };

    const onSubscriptionRefused = () => {
        window.clearTimeout(redirect.current);
        redirect.current = window.setTimeout(() => navigate(paths.subscription), SUBSCRIPTION_REDIRECT_MS);
    };

    const activeCount = doctors.filter(doctor => doctor.isActive).length;
    const planName = subscription?.planId?.name ?? null;
    const limitReached = !limit.checking && !limit.canAdd;
    const name = user.hospitalName || user.name;

    return (
        <main className="page hosp-page">
            <header className="page-header hosp-header">
                <div>
                    <h1>{t('Hospital Dashboard')}</h1>
                    <p className="hosp-welcome" data-testid="welcome">
                        {t('Welcome, {{name}}', { name })}
                    </p>
                </div>
                <Link className="btn btn-secondary" to={paths.subscription}>
                    {t('Manage Subscription')}
                </Link>
            </header>

            {error && (
                <Alert kind="error" title={t('Error:')} onClose={() => setError(null)}>
                    <p>{t(error)}</p>
                </Alert>
            )}
            {subscriptionError && (
                <Alert kind="warning" title={t('Subscription Error:')} onClose={() => setSubscriptionError(null)}>
                    <p>{t(subscriptionError)}</p>
                </Alert>
            )}

            {loading ? (
                <div className="page-loading">
                    <Spinner label={t('Loading dashboard...')} />
                </div>
            ) : (
                <>
                    <div className="hosp-stats">
                        <section className="card hosp-stat" aria-labelledby={`${headingId}-total`}>
                            <h2 id={`${headingId}-total`} className="hosp-stat-title">
                                {t('Total Doctors')}
                            </h2>
                            <p className="hosp-stat-value" data-testid="total-doctors">
                                {doctors.length}
                            </p>
                            <p className="hosp-stat-meta" data-testid="active-doctors">
                                {t('Active: {{count}}', { count: activeCount })}
                            </p>
                        </section>
                        <Link className="card hosp-stat hosp-stat-link" to={paths.subscription} data-testid="current-plan">
                            <h2 className="hosp-stat-title">{t('Current Plan')}</h2>
                            <p className="hosp-stat-value" data-testid="plan-name">
                                {planName ?? t('No Plan')}
                            </p>
                            <p className="hosp-stat-meta">
                                <PlanStatusBadge status={subscription?.status} />
                            </p>
                        </Link>
                        <RecordingStorageCard />
                    </div>

                    <section className="card hosp-card" aria-labelledby={`${headingId}-doctors`}>
                        <div className="hosp-card-head">
                            <h2 id={`${headingId}-doctors`}>{t('Doctor Management')}</h2>
                            <AddDoctorButton
                                limit={limit}
                                busy={submitting}
                                onAdd={() => setAdding(true)}
                                testId="add-doctor"
                            >
                                {t('Add Doctor')}
                            </AddDoctorButton>
                        </div>
                        {limitReached && (
                            <p className="hosp-limit-note" data-testid="limit-note">
                                {t(limit.reason ?? 'Doctor limit reached for your current plan. Upgrade to add more.')}{' '}
                                <Link to={paths.subscription}>{t('View plans')}</Link>
                            </p>
                        )}
                        {doctors.length ? (
                            <DashboardDoctorsTable doctors={doctors} />
                        ) : (
                            <p className="hosp-empty-text">{t('No doctors have been added yet.')}</p>
                        )}
                    </section>
                </>
            )}

            {adding && (
                <DashboardAddDoctorModal
                    hospitalId={hospitalId}
                    onClose={() => setAdding(false)}
                    onAdded={onAdded}
                    onBusyChange={setSubmitting}
                    onSubscriptionRefused={onSubscriptionRefused}
                />
            )}
        </main>
    );
};

export default HospitalDashboard;
