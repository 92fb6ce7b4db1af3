import { SPECIALTIES, type Specialty } from '../../config/paths';
import type { DoctorCreate, DoctorUpdate, Doctor } from './api';

/**
 * The two doctor forms of a hospital (spec §5). Their rules differ on
 * purpose: the Manage Doctors form asks for an 8-character password and a
 * 10-15 digit phone number; the dashboard's quick add asks for 6 characters,
 * a specialty chosen from a blank 'Select Specialty', and more than 0 years.
 * Messages are the spec's English texts, also the translation keys; the
 * server repeats its own checks and its per-field messages are shown too.
 */
export type FormErrors<Field extends string> = Partial<Record<Field, string>>;

// The spec's "simple address pattern", the same as the server's.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE_DIGITS = /^\d{10,15}$/;
export const MAX_EXPERIENCE = 80;

const blank = (value: string): boolean => !value.trim();

/** Drops the entries without a message, so `Object.keys(errors).length` counts real errors. */
const compact = <Field extends string>(errors: Record<Field, string | undefined>): FormErrors<Field> =>
    Object.fromEntries(Object.entries(errors).filter(([, message]) => message)) as FormErrors<Field>;

/** A number input's text as whole years; blank is 0, anything else not whole is null. */
export const years = (value: string): number | null => {
    if (blank(value)) return 0;
    const parsed = Number(value);
    return Number.isInteger(parsed) ? parsed : null;
};

export const isSpecialty = (value: unknown): value is Specialty =>
    typeof value === 'string' && (SPECIALTIES as readonly string[]).includes(value);

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
): FormErrors<ManageDoctorField> => {
    let email: string | undefined;
    if (blank(form.email)) email = 'Email is required';
    else if (!EMAIL.test(form.email.trim())) email = 'Invalid email format';
    let password: string | undefined;
    if (adding) {
        if (!form.password) password = 'Password is required';
        else if (form.password.length < 8) password = 'Password must be at least 8 characters';
    }
    let phoneNumber: string | undefined;
    if (blank(form.phoneNumber)) phoneNumber = 'Phone number is required';
    else if (!PHONE_DIGITS.test(form.phoneNumber.trim())) phoneNumber = 'Invalid phone number format';
    const experienceYears = years(form.experience);
    let experience: string | undefined;
    if (experienceYears === null) experience = 'Experience must be a whole number of years';
    else if (experienceYears < 0) experience = 'Experience cannot be negative';
    else if (experienceYears > MAX_EXPERIENCE) experience = 'Experience must be 80 years or less';
    return compact<ManageDoctorField>({
        name: blank(form.name) ? 'Name is required' : undefined,
        email,
        phoneNumber,
        specialty: isSpecialty(form.specialty) ? undefined : 'Specialty is required',
        licenseNumber: blank(form.licenseNumber) ? 'License number is required' : undefined,
        experience,
        country: blank(form.country) ? 'Country is required' : undefined,
        state: blank(form.state) ? 'State/Province is required' : undefined,
        password,
    });
};

/** POST body of the Manage Doctors add (spec §7: the form fields plus hospitalId). */
export const manageCreateBody = (form: ManageDoctorForm, hospitalId: string): DoctorCreate => ({
    name: form.name.trim(),
    email: form.email.trim(),
    password: form.password,
    phoneNumber: form.phoneNumber.trim(),
    specialty: form.specialty,
    licenseNumber: form.licenseNumber.trim(),
    experience: years(form.experience) ?? 0,
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
        experience: years(form.experience) ?? 0,
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

export interface DashboardDoctorForm {
    name: string;
    email: string;
    phoneNumber: string;
    /** Blank until chosen ('Select Specialty'). */
    specialty: string;
    licenseNumber: string;
    experience: string;
    password: string;
    /** Free text here (spec §2 "Hospital Dashboard"). */
    country: string;
    state: string;
}
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

export const validateDashboardDoctor = (form: DashboardDoctorForm): FormErrors<DashboardDoctorField> => {
    let email: string | undefined;
    if (blank(form.email)) email = 'Email is required';
    else if (!EMAIL.test(form.email.trim())) email = 'Email is invalid';
    let password: string | undefined;
    if (!form.password) password = 'Password is required';
    else if (form.password.length < 6) password = 'Password must be at least 6 characters';
    const experienceYears = years(form.experience);
    let experience: string | undefined;
    if (experienceYears === null) experience = 'Experience must be a whole number of years';
    else if (experienceYears <= 0) experience = 'Experience must be greater than 0';
    else if (experienceYears > MAX_EXPERIENCE) experience = 'Experience must be 80 years or less';
    return compact<DashboardDoctorField>({
        name: blank(form.name) ? 'Name is required' : undefined,
        email,
        phoneNumber: blank(form.phoneNumber) ? 'Phone number is required' : undefined,
        specialty: isSpecialty(form.specialty) ? undefined : 'Specialty is required',
        licenseNumber: blank(form.licenseNumber) ? 'License number is required' : undefined,
        experience,
        password,
        country: blank(form.country) ? 'Country is required' : undefined,
        state: blank(form.state) ? 'State is required' : undefined,
    });
};

/** POST body of the dashboard add: also isHospitalCreated and privacyPolicyAccepted (spec §7). */
export const dashboardCreateBody = (form: DashboardDoctorForm, hospitalId: string): DoctorCreate => ({
    name: form.name.trim(),
    email: form.email.trim(),
    password: form.password,
    phoneNumber: form.phoneNumber.trim(),
    specialty: form.specialty,
    licenseNumber: form.licenseNumber.trim(),
    experience: years(form.experience) ?? 1,
    country: form.country.trim(),
    state: form.state.trim(),
    hospitalId,
    isHospitalCreated: true,
    privacyPolicyAccepted: true,
});
