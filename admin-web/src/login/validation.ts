/** Admin login rules (spec §5 "Hospital and admin login"); values are i18n keys. */

export interface LoginForm {
    email: string;
    password: string;
}

export type LoginErrors = Partial<Record<keyof LoginForm, string>>;

export const MIN_PASSWORD_LENGTH = 8;

// The spec's "simple address pattern": something@something.something, no spaces.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const validateLogin = ({ email, password }: LoginForm): LoginErrors => {
    const errors: LoginErrors = {};
    if (!email.trim()) errors.email = 'cara.validation.email_required';
    else if (!EMAIL_PATTERN.test(email.trim())) errors.email = 'cara.validation.email_invalid';
    if (!password) errors.password = 'cara.validation.password_required';
    else if (password.length < MIN_PASSWORD_LENGTH) errors.password = 'cara.validation.password_min_length';
    return errors;
};
