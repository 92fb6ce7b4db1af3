import type { RaRecord } from 'react-admin';

/** GET /api/admin/hospitals rows. */
export interface Hospital extends RaRecord {
    name: string;
    email: string;
    city: string | null;
    country: string | null;
    isVerified: boolean;
    status: 'active' | 'suspended';
    doctorsCount: number;
    createdAt: string;
}
