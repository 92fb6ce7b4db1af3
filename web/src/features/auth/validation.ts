import type { Role } from '@/lib/session/storage';
import { MESSAGES } from './messages';

/**
 * Client-side checks of the sign-in and password-reset forms (spec §5). They
 * return English message keys, translated where they are shown, so an error
 * already on screen follows a language change. The server repeats every
 * check (cara.auth.service); these only spare a round trip.
 */

/** The spec's "simple address pattern", the same one the server applies. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Spec §9: hospital and admin sign-in ask for 8 characters; doctors' sign-in has no minimum. */
const LOGIN_PASSWORD_MIN: Record<Role, number | null> = { doctor: null, hospital: 8, admin: 8 };

/**
 * A new password must satisfy every role (the server's minimum is 6 for
 * doctors, 8 for hospitals and admins) and the reset link does not say whose
 * it is, so the form asks for the stricter 8.
 */
export const NEW_PASSWORD_MIN = 8;

export type FieldErrors<Field extends string> = Partial<Record<Field, string>>;
export type LoginField = 'email' | 'password';
export type NewPasswordField = 'password' | 'confirm';

export const hasErrors = (errors: Record<string, string | undefined>): boolean =>
    Object.values(errors).some(Boolean);

// Whitespace-only counts as empty, as on the server.
const blank = (value: string): boolean => !value.trim();

export const emailError = (email: string): string | undefined => {
    if (blank(email)) return MESSAGES.emailRequired;
    if (!EMAIL_PATTERN.test(email.trim())) return MESSAGES.emailInvalid;
    return undefined;
};

export const validateLogin = (role: Role, values: { email: string; password: string }): FieldErrors<LoginField> => {
    const minimum = LOGIN_PASSWORD_MIN[role];
    let password: string | undefined;
    if (blank(values.password)) password = MESSAGES.passwordRequired;
    else if (minimum !== null && values.password.length < minimum) password = MESSAGES.passwordTooShortLogin;
    return { email: emailError(values.email), password };
};

export const validateNewPassword = (values: { password: string; confirm: string }): FieldErrors<NewPasswordField> => {
    let password: string | undefined;
    if (blank(values.password)) password = MESSAGES.passwordRequired;
    else if (values.password.length < NEW_PASSWORD_MIN) password = MESSAGES.passwordTooShort;
    let confirm: string | undefined;
    if (!values.confirm) confirm = MESSAGES.confirmRequired;
    else if (values.confirm !== values.password) confirm = MESSAGES.passwordsDiffer;
    return { password, confirm };
};
