import { useTranslate } from 'react-admin';
import type { Doctor } from '../lib/api/records';

export const Specialization = ({ doctor }: { doctor: Doctor }) => {
    const translate = useTranslate();
    const value = doctor.specialization ?? '';
    return <>{value ? translate(`cara.specialties.${value}`, { _: value }) : ''}</>;
};

/** Doctors who registered themselves belong to no hospital: 'Independent'. */
export const HospitalName = ({ doctor }: { doctor: Doctor }) => {
    const translate = useTranslate();
    return <>{doctor.hospitalName ?? translate('cara.independent')}</>;
};
