import type { RaRecord } from 'react-admin';

/** GET /api/admin/doctors rows. */
export interface Doctor extends RaRecord {
    name: string;
    email: string;
    specialization: string | null;
    hospitalId: string | null;
    hospitalName: string | null;
    isVerified: boolean;
    isActive: boolean;
    createdAt: string;
}

/** Spec §1: the five specialties. */
export const SPECIALTIES = ['Radiologist', 'Radiotherapist', 'Cardiologist', 'General Practitioner', 'Nurse'] as const;
