import { SPECIALTIES, type Specialty } from '../../config/paths';

/**
 * Client-side checks of the three registration forms (spec §5). Messages are
 * the spec's English texts, which are also the translation keys: the pages
 * translate them when they render, so a language switch re-translates errors
 * already on screen. The server repeats every check (cara.auth.service) with
 * the same texts; these only save a round trip.
 */
export type FormErrors<Field extends string> = Partial<Record<Field, string>>;

// The spec's "simple address pattern", the same as the server's.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE_DIGITS = /^\d{10,15}$/;

const blank = (value: string): boolean => !value.trim();

const emailError = (email: string): string | undefined => {
    if (blank(email)) return 'Email is required';
    if (!EMAIL.test(email.trim())) return 'Invalid email format';
    return undefined;
};

/** http(s) with a dotted host, as the server's url_ok accepts. */
export const isWebUrl = (value: string): boolean => {
    try {
        const parsed = new URL(value.trim());
        return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname.includes('.');
    } catch {
        return false;
    }
};

/** A whole number typed in a number input; blank counts as 0 (the spec's default). */
export const wholeNumber = (value: string): number | null => {
    if (blank(value)) return 0;
    const parsed = Number(value);
    return Number.isInteger(parsed) ? parsed : null;
};

/** Drops the entries without a message, so `Object.keys(errors).length` counts real errors. */
const compact = <Field extends string>(errors: Record<Field, string | undefined>): FormErrors<Field> =>
    Object.fromEntries(Object.entries(errors).filter(([, message]) => message)) as FormErrors<Field>;

// ---------------------------------------------------------------- doctor

export interface DoctorForm {
    name: string;
    email: string;
    password: string;
    confirmPassword: string;
    phoneNumber: string;
    specialty: Specialty;
    licenseNumber: string;
    /** As typed: a number input gives text, parsed on submit. */
    experience: string;
    country: string;
    state: string;
    privacyPolicyAccepted: boolean;
}
export type DoctorField = keyof DoctorForm;

export const EMPTY_DOCTOR_FORM: DoctorForm = {
    name: '',
    email: '',
    password: '',
    confirmPassword: '',
    phoneNumber: '',
    specialty: 'Radiologist',
    licenseNumber: '',
    experience: '0',
    country: '',
    state: '',
    privacyPolicyAccepted: false,
};

export const isSpecialty = (value: unknown): value is Specialty =>
    typeof value === 'string' && (SPECIALTIES as readonly string[]).includes(value);

const experienceError = (value: string): string | undefined => {
    const years = wholeNumber(value);
    if (years === null) return 'Experience must be a whole number of years';
    if (years < 0) return 'Experience cannot be negative';
    if (years > 80) return 'Experience must be 80 years or less';
    return undefined;
};

export const validateDoctor = (form: DoctorForm): FormErrors<DoctorField> => {
    let password: string | undefined;
    if (!form.password) password = 'Password is required';
    else if (form.password.length < 6) password = 'Password must be at least 6 characters';
    let confirmPassword: string | undefined;
    if (!form.confirmPassword) confirmPassword = 'Please confirm your password';
    else if (form.confirmPassword !== form.password) confirmPassword = 'Passwords do not match';
    return compact<DoctorField>({
        name: blank(form.name) ? 'Name is required' : undefined,
        email: emailError(form.email),
        password,
        confirmPassword,
        phoneNumber: blank(form.phoneNumber) ? 'Phone number is required' : undefined,
        specialty: isSpecialty(form.specialty) ? undefined : 'Specialty is required',
        licenseNumber: blank(form.licenseNumber) ? 'License number is required' : undefined,
        experience: experienceError(form.experience),
        country: blank(form.country) ? 'Country is required' : undefined,
        state: blank(form.state) ? 'State is required' : undefined,
        privacyPolicyAccepted: form.privacyPolicyAccepted ? undefined : 'You must accept the privacy policy',
    });
};

// ---------------------------------------------------------------- hospital

export interface HospitalForm {
    name: string;
    email: string;
    password: string;
    confirmPassword: string;
    phoneNumber: string;
    address: string;
    type: 'private' | 'public';
    registrationNumber: string;
    capacity: string;
    country: string;
    state: string;
    website: string;
    privacyPolicyAccepted: boolean;
}
export type HospitalField = keyof HospitalForm;

export const EMPTY_HOSPITAL_FORM: HospitalForm = {
    name: '',
    email: '',
    password: '',
    confirmPassword: '',
    phoneNumber: '',
    address: '',
    type: 'private',
    registrationNumber: '',
    capacity: '',
    country: '',
    state: '',
    website: '',
    privacyPolicyAccepted: false,
};

/** Spec §3/§5: capacity is an integer number of beds, 0 when it is not one. */
export const parseCapacity = (value: string): number => {
    const beds = Number.parseInt(value, 10);
    return Number.isNaN(beds) ? 0 : beds;
};

export const validateHospital = (form: HospitalForm): FormErrors<HospitalField> => {
    let password: string | undefined;
    // Hospitals sign in with at least 8 characters (spec §5 "Hospital and
    // admin login"), and the server refuses shorter ones at sign-up.
    if (!form.password) password = 'Password is required';
    else if (form.password.length < 8) password = 'Password must be at least 8 characters';
    let confirmPassword: string | undefined;
    if (!form.confirmPassword) confirmPassword = 'Please confirm your password';
    else if (form.confirmPassword !== form.password) confirmPassword = 'Passwords do not match';
    const beds = parseCapacity(form.capacity);
    return compact<HospitalField>({
        name: blank(form.name) ? 'Hospital name is required' : undefined,
        type: form.type === 'private' || form.type === 'public' ? undefined : 'Type must be private or public',
        email: emailError(form.email),
        password,
        confirmPassword,
        phoneNumber: blank(form.phoneNumber) ? 'Phone number is required' : undefined,
        address: blank(form.address) ? 'Address is required' : undefined,
        registrationNumber: blank(form.registrationNumber) ? 'Registration number is required' : undefined,
        capacity:
            beds < 0
                ? 'Capacity cannot be negative'
                : beds > 1_000_000
                  ? 'Capacity must be 1,000,000 beds or fewer'
                  : undefined,
        country: blank(form.country) ? 'Country is required' : undefined,
        state: blank(form.state) ? 'State is required' : undefined,
        website: !blank(form.website) && !isWebUrl(form.website) ? 'Website must be a valid URL' : undefined,
        privacyPolicyAccepted: form.privacyPolicyAccepted ? undefined : 'You must accept the privacy policy.',
    });
};

// ---------------------------------------------------------------- admin

export interface AdminForm {
    name: string;
    email: string;
    password: string;
    confirmPassword: string;
    phoneNumber: string;
}
export type AdminField = keyof AdminForm;

export const EMPTY_ADMIN_FORM: AdminForm = {
    name: '',
    email: '',
    password: '',
    confirmPassword: '',
    phoneNumber: '',
};

export const validateAdmin = (form: AdminForm): FormErrors<AdminField> => {
    let password: string | undefined;
    if (!form.password) password = 'Password is required';
    else if (form.password.length < 8) password = 'Password must be at least 8 characters';
    let phoneNumber: string | undefined;
    if (blank(form.phoneNumber)) phoneNumber = 'Phone number is required';
    else if (!PHONE_DIGITS.test(form.phoneNumber.trim())) phoneNumber = 'Invalid phone number format';
    return compact<AdminField>({
        name: blank(form.name) ? 'Name is required' : undefined,
        email: emailError(form.email),
        password,
        // Spec §5: the admin confirmation only has to match (an empty one does not).
        confirmPassword: form.confirmPassword !== form.password ? 'Passwords do not match' : undefined,
        phoneNumber,
    });
};
