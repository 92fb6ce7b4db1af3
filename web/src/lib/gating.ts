import { useEffect, useState } from 'react';

import { api } from './api/client';
import { sessionStore, type SessionUser } from './session/storage';

/**
 * May this user open the clinical pages (spec §6)? Independent doctors need
 * their own subscription active or trialing; hospital-created doctors need
 * their hospital's subscription. The server applies the same rule to the
 * live assistant (cara.subscriptions.service.grants_clinical_access): this is
 * the page-level mirror of it, not the security boundary.
 */
export type Access =
    | { state: 'checking' }
    | { state: 'allowed'; status: string; planName?: string | null }
    | { state: 'needs-subscription'; status: string }
    | { state: 'facility-inactive'; status: string; planName?: string | null }
    | { state: 'error' };

export const ACCESS_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing']);

export const isHospitalCreatedDoctor = (user: SessionUser): boolean =>
    user.role === 'doctor' && Boolean(user.isHospitalCreated && user.hospitalId);

export const checkAccess = async (user: SessionUser): Promise<Access> => {
    // Opened with no connection by a doctor who signed in here before: the consoles open (to
    // record now and process later); the server checks access again when the recording arrives.
    if (sessionStore.offline()) return { state: 'allowed', status: 'offline' };
    if (isHospitalCreatedDoctor(user)) {
        // Spec §2: an error here is treated as inactive.
        const { data } = await api.GET('/api/doctors/hospital-subscription-status').catch(() => ({ data: undefined }));
        // planName: the hospital's plan, shown on the doctor's dashboard.
        if (data?.hospitalSubscriptionActive) return { state: 'allowed', status: data.status, planName: data.planName };
        return { state: 'facility-inactive', status: data?.status ?? 'inactive', planName: data?.planName };
    }
    const { data } = await api.GET('/api/subscription/current').catch(() => ({ data: undefined }));
    if (!data) return { state: 'error' };
    return ACCESS_STATUSES.has(data.status)
        ? { state: 'allowed', status: data.status }
        : { state: 'needs-subscription', status: data.status };
};

/** The access of the signed-in doctor; re-checked when the user changes. */
export const useClinicalAccess = (user: SessionUser | null): Access => {
    const [access, setAccess] = useState<Access>({ state: 'checking' });
    const userId = user?._id;
    useEffect(() => {
        if (!user || user.role !== 'doctor') return;
        let cancelled = false;
        setAccess({ state: 'checking' });
        checkAccess(user).then(result => {
            if (!cancelled) setAccess(result);
        });
        return () => {
            cancelled = true;
        };
        // Keyed by the user id on purpose: a profile edit must not re-run the check.
    }, [userId]);
    return access;
};
