import {
    blank,
    confirmationError,
    emailError,
    PASSWORD_REQUIRED,
    passwordError,
    type FormErrors,
} from '@/lib/forms/fields';
import type { Role } from '@/lib/session/storage';
import { MESSAGES } from './messages';

/**
 * Client-side checks of the sign-in and password-reset forms (spec §5). They
 * return English message keys, translated where they are shown, so an error
 * already on screen follows a language change. The server repeats every
 * check (cara.auth.service); these only spare a round trip.
 */

/** Spec §9: hospital and admin sign-in ask for 8 characters; doctors' sign-in has no minimum. */
const LOGIN_PASSWORD_MIN: Record<Role, number | null> = { doctor: null, hospital: 8, admin: 8 };

/**
 * A new password must satisfy every role (the server's minimum is 6 for
 * doctors, 8 for hospitals and admins) and the reset link does not say whose
 * it is, so the form asks for the stricter 8.
 */
export const NEW_PASSWORD_MIN = 8;

export type LoginField = 'email' | 'password';
export type NewPasswordField = 'password' | 'confirm';

export const hasErrors = (errors: Record<string, string | undefined>): boolean =>
    Object.values(errors).some(Boolean);

// Sign-in and reset count a whitespace-only password as missing, as the server does.
export const validateLogin = (role: Role, values: { email: string; password: string }): FormErrors<LoginField> => {
    const minimum = LOGIN_PASSWORD_MIN[role];
    let password: string | undefined;
    if (blank(values.password)) password = PASSWORD_REQUIRED;
    else if (minimum !== null && values.password.length < minimum) password = MESSAGES.passwordTooShortLogin;
    return { email: emailError(values.email), password };
};

export const validateNewPassword = (values: { password: string; confirm: string }): FormErrors<NewPasswordField> => ({
    password: blank(values.password) ? PASSWORD_REQUIRED : passwordError(values.password, NEW_PASSWORD_MIN),
    confirm: confirmationError(values.confirm, values.password),
});
