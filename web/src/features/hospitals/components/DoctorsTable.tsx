import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { EditIcon, PowerIcon, TrashIcon } from '@/components/ui/icons';
import { doctorNotesPath } from '@/config/paths';
import type { Doctor } from '../api';
import { StatusBadge } from './StatusBadge';

import '../hospitals.css';

/**
 * The Manage Doctors table (spec §2): Name, Specialty, Experience, License
 * Number, Status, Actions. On a phone each row is a card (hospitals.css), every
 * cell titled by its data-label, the actions at the card's foot. The action buttons show icons; their accessible
 * names say what they do and to whom ('Edit Kofi Mensah').
 */
export const DoctorsTable = ({
    doctors,
    busyId,
    onEdit,
    onToggle,
    onDelete,
}: {
    doctors: readonly Doctor[];
    /** The doctor whose status change is in flight. */
    busyId: string | null;
    onEdit: (doctor: Doctor) => void;
    onToggle: (doctor: Doctor) => void;
    onDelete: (doctor: Doctor) => void;
}) => {
    const { t } = useTranslation('hospitals');
    return (
        <div className="hosp-table-wrap">
            <table className="hosp-table" data-testid="doctors-table">
                <caption className="visually-hidden">{t('Doctors')}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t('Name')}</th>
                        <th scope="col">{t('Specialty')}</th>
                        <th scope="col">{t('Experience')}</th>
                        <th scope="col">{t('License Number')}</th>
                        <th scope="col">{t('Status')}</th>
                        <th scope="col">{t('Actions')}</th>
                    </tr>
                </thead>
                <tbody>
                    {doctors.map(doctor => {
                        const toggle = doctor.isActive
                            ? t('Deactivate {{name}}', { name: doctor.name })
                            : t('Activate {{name}}', { name: doctor.name });
                        return (
                            <tr key={doctor._id} data-testid="doctor-row">
                                <th scope="row">
                                    <span className="hosp-doctor-name">{doctor.name}</span>
                                    <span className="hosp-doctor-email">{doctor.email}</span>
                                    <Link
                                        className="hosp-doctor-notes"
                                        to={doctorNotesPath(doctor._id)}
                                        state={{ name: doctor.name }}
                                        aria-label={t('Signed notes of {{name}}', { name: doctor.name })}
                                    >
                                        {t('Signed notes')}
                                    </Link>
                                </th>
                                <td data-label={t('Specialty')}>{t(doctor.specialty)}</td>
                                <td data-label={t('Experience')} className="hosp-nowrap">
                                    {t('{{count}} years', { count: doctor.experience })}
                                </td>
                                <td data-label={t('License Number')}>{doctor.licenseNumber}</td>
                                <td data-label={t('Status')}>
                                    <StatusBadge active={doctor.isActive} />
                                </td>
                                <td data-label={t('Actions')}>
                                    <div className="hosp-actions">
                                        <button
                                            type="button"
                                            className="hosp-icon-btn"
                                            aria-label={t('Edit {{name}}', { name: doctor.name })}
                                            title={t('Edit')}
                                            onClick={() => onEdit(doctor)}
                                        >
                                            <EditIcon />
                                        </button>
                                        <button
                                            type="button"
                                            className={`hosp-icon-btn ${doctor.isActive ? 'hosp-icon-warn' : 'hosp-icon-ok'}`}
                                            aria-label={toggle}
                                            title={doctor.isActive ? t('Deactivate') : t('Activate')}
                                            disabled={busyId === doctor._id}
                                            aria-busy={busyId === doctor._id || undefined}
                                            onClick={() => onToggle(doctor)}
                                        >
                                            <PowerIcon />
                                        </button>
                                        <button
                                            type="button"
                                            className="hosp-icon-btn hosp-icon-danger"
                                            aria-label={t('Delete {{name}}', { name: doctor.name })}
                                            title={t('Delete')}
                                            onClick={() => onDelete(doctor)}
                                        >
                                            <TrashIcon />
                                        </button>
                                    </div>
                                </td>
                            </tr>
                        );
                    })}
                </tbody>
            </table>
        </div>
    );
};

/** The dashboard's table (spec §2): Name, Specialty, Email, Status. */
export const DashboardDoctorsTable = ({ doctors }: { doctors: readonly Doctor[] }) => {
    const { t } = useTranslation('hospitals');
    return (
        <div className="hosp-table-wrap">
            <table className="hosp-table" data-testid="dashboard-doctors-table">
                <caption className="visually-hidden">{t('Doctors')}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t('Name')}</th>
                        <th scope="col">{t('Specialty')}</th>
                        <th scope="col">{t('Email')}</th>
                        <th scope="col">{t('Status')}</th>
                    </tr>
                </thead>
                <tbody>
                    {doctors.map(doctor => (
                        <tr key={doctor._id} data-testid="doctor-row">
                            <th scope="row">
                                <span className="hosp-doctor-name">{doctor.name}</span>
                                <Link
                                    className="hosp-doctor-notes"
                                    to={doctorNotesPath(doctor._id)}
                                    state={{ name: doctor.name }}
                                    aria-label={t('Signed notes of {{name}}', { name: doctor.name })}
                                >
                                    {t('Signed notes')}
                                </Link>
                            </th>
                            <td data-label={t('Specialty')}>{t(doctor.specialty)}</td>
                            <td data-label={t('Email')}>{doctor.email}</td>
                            <td data-label={t('Status')}>
                                <StatusBadge active={doctor.isActive} />
                            </td>
                        </tr>
                    ))}
                </tbody>
            </table>
        </div>
    );
};
