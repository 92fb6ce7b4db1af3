import { SPECIALTIES, type Specialty } from '@/config/paths';

/**
 * Building blocks of the client-side form checks. Messages are the spec's
 * English texts, which are also the translation keys: pages translate them
 * when they render, so a language switch re-translates errors already on
 * screen. The server repeats every check with the same texts; these only save
 * a round trip.
 */
export type FormErrors<Field extends string> = Partial<Record<Field, string>>;

/** The spec's "simple address pattern", the same as the server's. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** 10 to 15 digits only (admin registration, Manage Doctors). */
export const PHONE_DIGITS = /^\d{10,15}$/;

/** Whitespace-only counts as empty, as on the server. */
export const blank = (value: string): boolean => !value.trim();

/** Drops the entries without a message, so `Object.keys(errors).length` counts real errors. */
export const compact = <Field extends string>(errors: Record<Field, string | undefined>): FormErrors<Field> =>
    Object.fromEntries(Object.entries(errors).filter(([, message]) => message)) as FormErrors<Field>;

/** A whole number typed in a number input; blank counts as 0 (the spec's default), anything not whole is null. */
export const wholeNumber = (value: string): number | null => {
    if (blank(value)) return 0;
    const parsed = Number(value);
    return Number.isInteger(parsed) ? parsed : null;
};

export const isSpecialty = (value: unknown): value is Specialty =>
    typeof value === 'string' && (SPECIALTIES as readonly string[]).includes(value);

/** http(s) with a dotted host, as the server's url_ok accepts. */
export const isWebUrl = (value: string): boolean => {
    try {
        const parsed = new URL(value.trim());
        return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname.includes('.');
    } catch {
        return false;
    }
};

export const emailError = (email: string, invalid = 'Invalid email format'): string | undefined => {
    if (blank(email)) return 'Email is required';
    if (!EMAIL.test(email.trim())) return invalid;
    return undefined;
};

export const PASSWORD_REQUIRED = 'Password is required';

/** Required, then at least `min` characters ('Password must be at least 6 characters'). */
export const passwordError = (password: string, min: number): string | undefined => {
    if (!password) return PASSWORD_REQUIRED;
    if (password.length < min) return `Password must be at least ${min} characters`;
    return undefined;
};

/** The registration forms' confirmation: required, then equal. */
export const confirmationError = (confirmation: string, password: string): string | undefined => {
    if (!confirmation) return 'Please confirm your password';
    if (confirmation !== password) return 'Passwords do not match';
    return undefined;
};
