import type { Specialty } from '@/config/paths';
import { DOCTOR_FORMS, validateDoctorFields, type DoctorFields } from '@/lib/forms/doctor';
import { isSpecialty, wholeNumber, type FormErrors } from '@/lib/forms/fields';
import type { DoctorCreate, DoctorUpdate, Doctor } from './api';

/**
 * The two doctor forms of a hospital (spec §5). Their rules differ on
 * purpose: the Manage Doctors form asks for an 8-character password and a
 * 10-15 digit phone number; the dashboard's quick add asks for 6 characters,
 * a specialty chosen from a blank 'Select Specialty', and more than 0 years.
 * Those differences are data (DOCTOR_FORMS in lib/forms/doctor); this module
 * holds each form's fields, defaults and request bodies. Messages are English
 * translation keys; the server's per-field messages are shown too.
 */
// ---------------------------------------------------------------- Manage Doctors form

export interface ManageDoctorForm {
    name: string;
    email: string;
    phoneNumber: string;
    specialty: Specialty;
    licenseNumber: string;
    /** As typed: a number input gives text, parsed on submit. */
    experience: string;
    country: string;
    state: string;
    /** Only when adding. */
    password: string;
}
export type ManageDoctorField = keyof ManageDoctorForm;

/** Spec §2/§9: Radiologist, 0 years and Ghana by default. */
export const EMPTY_MANAGE_FORM: ManageDoctorForm = {
    name: '',
    email: '',
    phoneNumber: '',
    specialty: 'Radiologist',
    licenseNumber: '',
    experience: '0',
    country: 'Ghana',
    state: '',
    password: '',
};

/** The form filled with a doctor being edited (the password is not editable here). */
export const manageFormOf = (doctor: Doctor): ManageDoctorForm => ({
    name: doctor.name,
    email: doctor.email,
    phoneNumber: doctor.phoneNumber,
    specialty: isSpecialty(doctor.specialty) ? doctor.specialty : 'Radiologist',
    licenseNumber: doctor.licenseNumber,
    experience: String(doctor.experience),
    country: doctor.country,
    state: doctor.state,
    password: '',
});

export const validateManageDoctor = (
    form: ManageDoctorForm,
    { adding }: { adding: boolean },
): FormErrors<ManageDoctorField> =>
    validateDoctorFields(form, DOCTOR_FORMS.manageDoctors, { withPassword: adding });

/** POST body of the Manage Doctors add (spec §7: the form fields plus hospitalId). */
export const manageCreateBody = (form: ManageDoctorForm, hospitalId: string): DoctorCreate => ({
    name: form.name.trim(),
    email: form.email.trim(),
    password: form.password,
    phoneNumber: form.phoneNumber.trim(),
    specialty: form.specialty,
    licenseNumber: form.licenseNumber.trim(),
    experience: wholeNumber(form.experience) ?? 0,
    country: form.country,
    state: form.state.trim(),
    hospitalId,
    isHospitalCreated: true,
});

/** PUT body of an edit: only what changed, plus hospitalId (spec §7). Null when nothing changed. */
export const manageUpdateBody = (form: ManageDoctorForm, doctor: Doctor, hospitalId: string): DoctorUpdate | null => {
    const next = {
        name: form.name.trim(),
        email: form.email.trim(),
        phoneNumber: form.phoneNumber.trim(),
        specialty: form.specialty,
        licenseNumber: form.licenseNumber.trim(),
        experience: wholeNumber(form.experience) ?? 0,
        country: form.country,
        state: form.state.trim(),
    };
    const changed: DoctorUpdate = {};
    let count = 0;
    for (const [field, value] of Object.entries(next) as [keyof typeof next, string | number][]) {
        const before = doctor[field];
        const same = field === 'email' ? String(before).toLowerCase() === String(value).toLowerCase() : before === value;
        if (!same) {
            (changed as Record<string, unknown>)[field] = value;
            count += 1;
        }
    }
    return count ? { ...changed, hospitalId } : null;
};

// ---------------------------------------------------------------- dashboard add form

/**
 * Exactly the shared doctor fields, all as typed: the specialty is blank
 * until chosen ('Select Specialty'), the country free text (spec §2
 * "Hospital Dashboard").
 */
export type DashboardDoctorForm = DoctorFields;
export type DashboardDoctorField = keyof DashboardDoctorForm;

/** Spec §5/§9: experience 1 by default on the dashboard. */
export const EMPTY_DASHBOARD_FORM: DashboardDoctorForm = {
    name: '',
    email: '',
    phoneNumber: '',
    specialty: '',
    licenseNumber: '',
    experience: '1',
    password: '',
    country: '',
    state: '',
};

export const validateDashboardDoctor = (form: DashboardDoctorForm): FormErrors<DashboardDoctorField> =>
    validateDoctorFields(form, DOCTOR_FORMS.dashboardAdd);

/** POST body of the dashboard add: also isHospitalCreated and privacyPolicyAccepted (spec §7). */
export const dashboardCreateBody = (form: DashboardDoctorForm, hospitalId: string): DoctorCreate => ({
    name: form.name.trim(),
    email: form.email.trim(),
    password: form.password,
    phoneNumber: form.phoneNumber.trim(),
    specialty: form.specialty,
    licenseNumber: form.licenseNumber.trim(),
    experience: wholeNumber(form.experience) ?? 1,
    country: form.country.trim(),
    state: form.state.trim(),
    hospitalId,
    isHospitalCreated: true,
    privacyPolicyAccepted: true,
});
