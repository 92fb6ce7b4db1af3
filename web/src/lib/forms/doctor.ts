import { blank, compact, emailError, isSpecialty, passwordError, PHONE_DIGITS, type FormErrors } from './fields';

/**
 * The doctor's fields, checked the same way by every form that edits them:
 * doctor registration, the hospital dashboard's quick add, Manage Doctors
 * (add and edit) and the doctor's own profile. The spec gives each form its
 * own minimums and texts (spec §5, §9): those differences are the data in
 * DOCTOR_FORMS below, not separate copies of the checks. The server applies
 * the same rules per form (one model per payload shape).
 */
export interface DoctorFields {
    name: string;
    email: string;
    phoneNumber: string;
    /** A specialty, or '' while 'Select Specialty' is still chosen. */
    specialty: string;
    licenseNumber: string;
    /** As typed: a number input gives text. */
    experience: string;
    country: string;
    state: string;
    password: string;
}
export type DoctorField = keyof DoctorFields;

export const MAX_EXPERIENCE = 80;

export interface DoctorFormRules {
    /** The message of an email that is not an address. */
    emailInvalid: string;
    /** The pattern a phone number must match beyond being given, or null (only required). */
    phone: { pattern: RegExp; message: string } | null;
    /** The password minimum, or null when the form has no password. */
    passwordMin: number | null;
    experience: {
        /** A blank input counts as 0 years, or is refused like any non-number. */
        blankIsZero: boolean;
        /** Fewest years accepted, and the message below it. */
        min: number;
        belowMin: string;
    };
    /** The message of a blank country / state, or null when the form has no such field. */
    countryRequired: string | null;
    stateRequired: string | null;
}

const PHONE_DIGITS_RULE = { pattern: PHONE_DIGITS, message: 'Invalid phone number format' };
const NOT_NEGATIVE = { blankIsZero: true, min: 0, belowMin: 'Experience cannot be negative' };

export const DOCTOR_FORMS = {
    /** /doctor-register (spec §5 "Doctor registration"). */
    registration: {
        emailInvalid: 'Invalid email format',
        phone: null,
        passwordMin: 6,
        experience: NOT_NEGATIVE,
        countryRequired: 'Country is required',
        stateRequired: 'State is required',
    },
    /** The hospital dashboard's add form (spec §5 "Hospital dashboard add form"): more than 0 years. */
    dashboardAdd: {
        emailInvalid: 'Email is invalid',
        phone: null,
        passwordMin: 6,
        experience: { blankIsZero: true, min: 1, belowMin: 'Experience must be greater than 0' },
        countryRequired: 'Country is required',
        stateRequired: 'State is required',
    },
    /** Manage Doctors add/edit (spec §5 "Manage Doctors form"); the password only when adding. */
    manageDoctors: {
        emailInvalid: 'Invalid email format',
        phone: PHONE_DIGITS_RULE,
        passwordMin: 8,
        experience: NOT_NEGATIVE,
        countryRequired: 'Country is required',
        stateRequired: 'State/Province is required',
    },
    /** The doctor's own profile (spec §2 "Doctor Profile page"), as cara.profiles checks it. */
    profile: {
        emailInvalid: 'Invalid email format',
        phone: { pattern: /^\+?[\d\s\-().]{6,32}$/, message: 'Invalid phone number format' },
        passwordMin: null,
        experience: { ...NOT_NEGATIVE, blankIsZero: false },
        countryRequired: null,
        stateRequired: null,
    },
} as const satisfies Record<string, DoctorFormRules>;

export const experienceError = (value: string, rules: DoctorFormRules['experience']): string | undefined => {
    if (blank(value) && !rules.blankIsZero) return 'Experience must be a whole number of years';
    const years = blank(value) ? 0 : Number(value);
    if (!Number.isInteger(years)) return 'Experience must be a whole number of years';
    if (years < rules.min) return rules.belowMin;
    if (years > MAX_EXPERIENCE) return `Experience must be ${MAX_EXPERIENCE} years or less`;
    return undefined;
};

const phoneError = (value: string, rule: DoctorFormRules['phone']): string | undefined => {
    if (blank(value)) return 'Phone number is required';
    if (rule && !rule.pattern.test(value.trim())) return rule.message;
    return undefined;
};

/**
 * The messages of one doctor form: only the fields the form has are checked
 * (no password without `passwordMin`, or with `withPassword: false` as when
 * Manage Doctors edits a doctor; no country or state on the profile).
 */
export const validateDoctorFields = (
    form: DoctorFields,
    rules: DoctorFormRules,
    { withPassword = true }: { withPassword?: boolean } = {},
): FormErrors<DoctorField> =>
    compact<DoctorField>({
        name: blank(form.name) ? 'Name is required' : undefined,
        email: emailError(form.email, rules.emailInvalid),
        phoneNumber: phoneError(form.phoneNumber, rules.phone),
        specialty: isSpecialty(form.specialty) ? undefined : 'Specialty is required',
        licenseNumber: blank(form.licenseNumber) ? 'License number is required' : undefined,
        experience: experienceError(form.experience, rules.experience),
        country: rules.countryRequired && blank(form.country) ? rules.countryRequired : undefined,
        state: rules.stateRequired && blank(form.state) ? rules.stateRequired : undefined,
        password:
            rules.passwordMin !== null && withPassword ? passwordError(form.password, rules.passwordMin) : undefined,
    });
