/**
 * English keys of the auth screens that are chosen in code and translated
 * where they are shown (kept as keys in state so a message already on
 * screen follows a language change).
 */

// Marks the keys for scripts/check-i18n.mjs, which verifies that every
// literal t() key has an English entry. It translates nothing.
const t = (key: string): string => key;

export const MESSAGES = {
    passwordTooShortLogin: t('Password must be at least 8 characters long'),
    formInvalid: t('Please fix the errors in the form'),
    resetRequestFailed: t('Failed to send the reset link. Please try again.'),
    resetFailed: t('Failed to reset the password. Please try again.'),
} as const;
