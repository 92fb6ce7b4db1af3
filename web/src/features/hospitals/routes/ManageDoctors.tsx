import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { PlusIcon } from '@/components/ui/icons';
import { Spinner } from '@/components/ui/Spinner';
import { useToast } from '@/components/ui/Toasts';
import { useSession } from '@/lib/session/SessionProvider';
import type { SessionUser } from '@/lib/session/storage';
import { fetchDoctors, removeDoctor, setDoctorActive, type Doctor } from '../api';
import { AccessNotice } from '../components/AccessNotice';
import { DeleteDoctorModal } from '../components/DeleteDoctorModal';
import { DoctorFormModal } from '../components/DoctorFormModal';
import { DoctorsTable } from '../components/DoctorsTable';

import '../hospitals.css';

const MISSING_HOSPITAL = 'Hospital ID is missing. Please log in again.';

/**
 * /manage (spec §2 "Manage Doctors page", §4 "Doctor active/inactive", §8
 * "Doctors"): the hospital's doctors with add, edit, activate/deactivate and
 * remove; the list reloads after every change. Users who are not a hospital
 * see the page's own 'Access Denied' notice.
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
    const [doctors, setDoctors] = useState<Doctor[]>([]);
    const [loading, setLoading] = useState(true);
    const [editing, setEditing] = useState<Editing>(null);
    const [deleting, setDeleting] = useState<Doctor | null>(null);
    const [busyId, setBusyId] = useState<string | null>(null);

    /** Spec §8: a failed load is a toast and an empty list. */
    const load = useCallback(async () => {
        if (!hospitalId) {
            notify(t(MISSING_HOSPITAL), 'error');
            setDoctors([]);
            setLoading(false);
            return;
        }
        const result = await fetchDoctors(hospitalId);
        if (result.ok) {
            setDoctors(result.data);
        } else {
            notify(t(result.message), 'error');
            setDoctors([]);
        }
        setLoading(false);
    }, [hospitalId, notify, t]);

    useEffect(() => {
        void load();
        // Loaded once per hospital (not again on a language change); changes reload explicitly.
    }, [hospitalId]);

    const toggle = async (doctor: Doctor) => {
        setBusyId(doctor._id);
        const result = await setDoctorActive(doctor._id, !doctor.isActive);
        if (result.ok) notify(t('Doctor status updated successfully!'), 'success');
        else notify(t('Failed to update doctor status'), 'error');
        await load();
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
        <Button onClick={openAdd}>
            <PlusIcon />
            {t('Add New Doctor')}
        </Button>
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

            {loading ? (
                <div className="page-loading hosp-loading">
                    <Spinner label={t('Loading doctors...')} />
                    <span aria-hidden="true">{t('Loading doctors...')}</span>
                </div>
            ) : doctors.length ? (
                <section className="card hosp-card">
                    <DoctorsTable
                        doctors={doctors}
                        busyId={busyId}
                        onEdit={doctor => setEditing({ doctor })}
                        onToggle={doctor => void toggle(doctor)}
                        onDelete={setDeleting}
                    />
                </section>
            ) : (
                <section className="card hosp-empty" data-testid="doctors-empty">
                    <h2>{t('No Doctors Registered')}</h2>
                    <p>{t('Start by adding your first doctor to the system.')}</p>
                    <Button variant="secondary" onClick={openAdd}>
                        <PlusIcon />
                        {t('Add New Doctor')}
                    </Button>
                </section>
            )}

            {editing && (
                <DoctorFormModal
                    doctor={editing.doctor}
                    hospitalId={hospitalId}
                    onClose={() => setEditing(null)}
                    onSaved={() => {
                        setEditing(null);
                        void load();
                    }}
                />
            )}
            {deleting && <DeleteDoctorModal doctor={deleting} onCancel={() => setDeleting(null)} onConfirm={remove} />}
        </main>
    );
};

export default ManageDoctors;
