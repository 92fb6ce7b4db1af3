import type { Specialty } from '@/config/paths';
import { isSpecialty } from './fields';

/**
 * The doctor-registration draft (spec §2, §4 "Doctor-register draft"): a
 * hospital that leaves the form half-filled (to sign in, say) gets it back
 * when it returns to /doctor-register?isHospitalCreated=true&hospitalId=...
 * It lives in sessionStorage, so it never outlives the tab, and it is read
 * once then removed. Passwords are never stored and always come back blank.
 * Manage Doctors writes it ('Open full registration form'); the registration
 * page reads it.
 */
export const DOCTOR_DRAFT_KEY = 'doctorRegistrationDraft';

export interface DoctorDraft {
    name?: string;
    email?: string;
    phoneNumber?: string;
    specialty?: Specialty;
    licenseNumber?: string;
    /** As typed in the number input. */
    experience?: string;
    country?: string;
    state?: string;
    privacyPolicyAccepted?: boolean;
}

const TEXT_FIELDS = ['name', 'email', 'phoneNumber', 'licenseNumber', 'country', 'state'] as const;

/** Saves the form without its passwords (for the page that sends the hospital away). */
export const saveDoctorDraft = (form: DoctorDraft & { password?: string; confirmPassword?: string }): void => {
    const { password: _password, confirmPassword: _confirm, ...rest } = form;
    try {
        sessionStorage.setItem(DOCTOR_DRAFT_KEY, JSON.stringify(rest));
    } catch {
        // storage disabled or full: the hospital types the form again
    }
};

/**
 * The stored draft, keeping only well-typed known fields: it is data from
 * storage another page (or an old version of this one) wrote.
 */
export const readDoctorDraft = (): DoctorDraft | null => {
    let raw: string | null;
    try {
        raw = sessionStorage.getItem(DOCTOR_DRAFT_KEY);
    } catch {
        return null;
    }
    if (!raw) return null;
    let parsed: unknown;
    try {
        parsed = JSON.parse(raw);
    } catch {
        return null;
    }
    if (!parsed || typeof parsed !== 'object') return null;
    const stored = parsed as Record<string, unknown>;
    const draft: DoctorDraft = {};
    for (const field of TEXT_FIELDS) {
        if (typeof stored[field] === 'string') draft[field] = stored[field];
    }
    if (isSpecialty(stored.specialty)) draft.specialty = stored.specialty;
    if (typeof stored.experience === 'number' || typeof stored.experience === 'string') {
        draft.experience = String(stored.experience);
    }
    if (typeof stored.privacyPolicyAccepted === 'boolean') draft.privacyPolicyAccepted = stored.privacyPolicyAccepted;
    return draft;
};

export const clearDoctorDraft = (): void => {
    try {
        sessionStorage.removeItem(DOCTOR_DRAFT_KEY);
    } catch {
        // nothing stored then
    }
};
