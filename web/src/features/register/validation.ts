import type { Specialty } from '@/config/paths';
import { DOCTOR_FORMS, validateDoctorFields } from '@/lib/forms/doctor';
import {
    blank,
    compact,
    confirmationError,
    emailError,
    isWebUrl,
    passwordError,
    PHONE_DIGITS,
    type FormErrors,
} from '@/lib/forms/fields';

/**
 * Client-side checks of the three registration forms (spec §5), built from
 * the shared rules of lib/forms (the doctor's fields are checked there for
 * every doctor form). Messages are the spec's English texts, which are also
 * the translation keys. The server repeats every check with the same texts;
 * these only save a round trip.
 */

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

export const validateDoctor = (form: DoctorForm): FormErrors<DoctorField> => ({
    ...validateDoctorFields(form, DOCTOR_FORMS.registration),
    ...compact({
        confirmPassword: confirmationError(form.confirmPassword, form.password),
        privacyPolicyAccepted: form.privacyPolicyAccepted ? undefined : 'You must accept the privacy policy',
    }),
});

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
    // Hospitals sign in with at least 8 characters (spec §5 "Hospital and
    // admin login"), and the server refuses shorter ones at sign-up.
    const password = passwordError(form.password, 8);
    const confirmPassword = confirmationError(form.confirmPassword, form.password);
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
    const password = passwordError(form.password, 8);
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
