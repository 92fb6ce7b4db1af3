import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { Spinner } from '@/components/ui/Spinner';
import { useToast } from '@/components/ui/Toasts';
import { paths, SPECIALTIES } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import type { SessionUser } from '@/lib/session/storage';
import { removeDoctor, setDoctorActive, type Doctor } from '../api';
import { AccessNotice } from '../components/AccessNotice';
import { AddDoctorButton } from '../components/AddDoctorButton';
import { DeleteDoctorModal } from '../components/DeleteDoctorModal';
import { DoctorFormModal } from '../components/DoctorFormModal';
import { DoctorsTable } from '../components/DoctorsTable';
import type { DoctorFilters, DoctorSort } from '../pager';
import { useDoctorLimit } from '../useDoctorLimit';
import { useDoctorPager } from '../useDoctorPager';

import '../doctor-pages.css';
import '../hospitals.css';

const MISSING_HOSPITAL = 'Hospital ID is missing. Please log in again.';
const SEARCH_DELAY_MS = 300;

/**
 * /manage (spec §2 "Manage Doctors page", §4 "Doctor active/inactive", §8
 * "Doctors"): the hospital's doctors with add, edit, activate/deactivate and
 * remove; the page on screen reloads after every change. The list comes 50
 * rows at a time from the server, which also searches (name, email, licence
 * number, after a pause in typing), filters (specialty, state/province,
 * status) and orders it; Previous/Next follow its cursors. Add New Doctor is disabled at
 * the plan's doctor limit, or without a plan, with the reason in its tooltip and a note
 * that links to the plans. Users who are not a hospital see the page's own 'Access
 * Denied' notice.
 */
const ManageDoctors = () => {
    const { t } = useTranslation('hospitals');
    const { user, loading } = useSession();
    if (loading) return <p className="page-loading">{t('Loading user data...')}</p>;
    if (!user) {
        return <AccessNotice title={t('Access Denied')} message={t('Please log in to access this page.')} withLogin />;
    }
    if (user.role !== 'hospital') {
        return (
            <AccessNotice
                title={t('Access Denied')}
                message={t('This page is only available for hospital users.')}
                withLogin
            />
        );
    }
    return <Manage user={user} />;
};

type Editing = { doctor: Doctor | null } | null;

const Manage = ({ user }: { user: SessionUser }) => {
    const { t } = useTranslation('hospitals');
    const notify = useToast();
    const hospitalId = user.hospitalId ?? '';
    const [text, setText] = useState('');
    const [query, setQuery] = useState('');
    const [province, setProvince] = useState('');
    const [stateQuery, setStateQuery] = useState('');
    const [specialty, setSpecialty] = useState('');
    const [status, setStatus] = useState('');
    const [sort, setSort] = useState<DoctorSort>('name');
    const [editing, setEditing] = useState<Editing>(null);
    const [deleting, setDeleting] = useState<Doctor | null>(null);
    const [busyId, setBusyId] = useState<string | null>(null);

    // The typed filters wait for a pause in typing; the others apply at once.
    useEffect(() => {
        const timer = window.setTimeout(() => {
            setQuery(text.trim());
            setStateQuery(province.trim());
        }, SEARCH_DELAY_MS);
        return () => window.clearTimeout(timer);
    }, [text, province]);

    const filters: DoctorFilters = {
        q: query || undefined,
        state: stateQuery || undefined,
        specialty: specialty || undefined,
        isActive: status === '' ? undefined : status === 'active',
        sort,
    };
    const { pager, state } = useDoctorPager(hospitalId, filters);
    // The plan's doctor limit: Add is disabled at it (or without a plan) before any form is filled.
    const { limit, recheck } = useDoctorLimit(hospitalId);
    useEffect(() => {
        void recheck();
    }, [recheck]);
    const filtered = Boolean(query || stateQuery || specialty || status);

    useEffect(() => {
        if (!hospitalId) notify(t(MISSING_HOSPITAL), 'error');
        // Once per hospital (not again on a language change).
    }, [hospitalId]);

    /** Spec §8: a failed load is a toast (the page also says so, with a retry). */
    const failedMessage = state.status === 'failed' ? state.message : null;
    useEffect(() => {
        if (failedMessage) notify(t(failedMessage), 'error');
    }, [failedMessage]);

    const load = () => pager.reload();

    const toggle = async (doctor: Doctor) => {
        setBusyId(doctor._id);
        const result = await setDoctorActive(doctor._id, !doctor.isActive);
        if (result.ok) {
            notify(t('Doctor status updated successfully!'), 'success');
            // The row changes in place: a status filter does not make it jump off the page.
            pager.replace(row => row._id === doctor._id, result.data);
        } else {
            notify(t('Failed to update doctor status'), 'error');
            await load();
        }
        setBusyId(null);
    };

    const remove = async (doctor: Doctor) => {
        if (!hospitalId) {
            notify(t(MISSING_HOSPITAL), 'error');
            setDeleting(null);
            return;
        }
        const result = await removeDoctor(doctor._id, hospitalId);
        if (result.ok) notify(t('Doctor removed successfully!'), 'success');
        else notify(t('Failed to remove doctor'), 'error');
        setDeleting(null); // closes either way (spec §4)
        void recheck();
        await load();
    };

    const openAdd = () => {
        if (!hospitalId) {
            notify(t(MISSING_HOSPITAL), 'error');
            return;
        }
        setEditing({ doctor: null });
    };

    const addButton = (
        <AddDoctorButton limit={limit} onAdd={openAdd} testId="manage-add-doctor">
            {t('Add New Doctor')}
        </AddDoctorButton>
    );

    return (
        <main className="page hosp-page">
            <header className="page-header hosp-header">
                <div>
                    <h1>{t('Manage Doctors')}</h1>
                    <p className="hosp-subtitle">{t("Add, edit, activate or remove your hospital's doctors.")}</p>
                </div>
                {addButton}
            </header>
            {!limit.checking && limit.reason && (
                <p className="hosp-limit-note" data-testid="limit-note">
                    {t(limit.reason)} <Link to={paths.subscription}>{t('View plans')}</Link>
                </p>
            )}

            <form className="hosp-filters card" role="search" onSubmit={event => event.preventDefault()}>
                <TextField
                    label={t('Search')}
                    type="search"
                    value={text}
                    onChange={event => setText(event.target.value)}
                    placeholder={t('Name, email or license number')}
                    data-testid="doctors-search"
                />
                <SelectField
                    label={t('Specialty')}
                    value={specialty}
                    onChange={event => setSpecialty(event.target.value)}
                    placeholder={t('All specialties')}
                    options={SPECIALTIES.map(value => ({ value, label: t(value) }))}
                    data-testid="doctors-specialty"
                />
                <TextField
                    label={t('State/Province')}
                    value={province}
                    onChange={event => setProvince(event.target.value)}
                    data-testid="doctors-state"
                />
                <SelectField
                    label={t('Status')}
                    value={status}
                    onChange={event => setStatus(event.target.value)}
                    placeholder={t('All statuses')}
                    options={[
                        { value: 'active', label: t('Active') },
                        { value: 'inactive', label: t('Inactive') },
                    ]}
                    data-testid="doctors-status"
                />
                <SelectField
                    label={t('Sort by')}
                    value={sort}
                    onChange={event => setSort(event.target.value as DoctorSort)}
                    options={[
                        { value: 'name', label: t('Name (A-Z)') },
                        { value: '-name', label: t('Name (Z-A)') },
                        { value: '-createdAt', label: t('Newest first') },
                        { value: 'createdAt', label: t('Oldest first') },
                    ]}
                    data-testid="doctors-sort"
                />
            </form>

            {state.status === 'failed' && (
                <Alert kind="error" title={t('Failed to load doctors')}>
                    <p>{t(state.message)}</p>
                    <Button variant="secondary" onClick={() => void load()}>
                        {t('Try again')}
                    </Button>
                </Alert>
            )}
            {state.status === 'loading' && state.items.length === 0 ? (
                <div className="page-loading hosp-loading">
                    <Spinner label={t('Loading doctors...')} />
                    <span aria-hidden="true">{t('Loading doctors...')}</span>
                </div>
            ) : state.status !== 'failed' && state.items.length ? (
                <section className="card hosp-card" aria-busy={state.status === 'loading' || undefined}>
                    <DoctorsTable
                        doctors={state.items}
                        busyId={busyId}
                        onEdit={doctor => setEditing({ doctor })}
                        onToggle={doctor => void toggle(doctor)}
                        onDelete={setDeleting}
                    />
                    {(state.page > 1 || (state.status === 'loaded' && state.hasNext)) && (
                        <nav className="hosp-pager" aria-label={t('Pages')}>
                            <Button
                                variant="secondary"
                                disabled={state.page < 2 || state.status === 'loading'}
                                onClick={() => void pager.previousPage()}
                                data-testid="doctors-previous"
                            >
                                {t('Previous')}
                            </Button>
                            <span className="hosp-pager-page" data-testid="doctors-page">
                                {t('Page {{page}}', { page: state.page })}
                            </span>
                            <Button
                                variant="secondary"
                                disabled={state.status !== 'loaded' || !state.hasNext}
                                onClick={() => void pager.nextPage()}
                                data-testid="doctors-next"
                            >
                                {t('Next')}
                            </Button>
                        </nav>
                    )}
                </section>
            ) : state.status === 'loaded' && filtered ? (
                <p className="card hosp-empty" data-testid="doctors-none-match">
                    {t('No doctor matches these filters.')}
                </p>
            ) : state.status === 'loaded' ? (
                <section className="card hosp-empty" data-testid="doctors-empty">
                    <h2>{t('No Doctors Registered')}</h2>
                    <p>{t('Start by adding your first doctor to the system.')}</p>
                    <AddDoctorButton limit={limit} onAdd={openAdd} variant="secondary">
                        {t('Add New Doctor')}
                    </AddDoctorButton>
                </section>
            ) : null}

            {editing && (
                <DoctorFormModal
                    doctor={editing.doctor}
                    hospitalId={hospitalId}
                    onClose={() => setEditing(null)}
                    onSaved={() => {
                        setEditing(null);
                        void recheck();
                        void load();
                    }}
                />
            )}
            {deleting && <DeleteDoctorModal doctor={deleting} onCancel={() => setDeleting(null)} onConfirm={remove} />}
        </main>
    );
};

export default ManageDoctors;
