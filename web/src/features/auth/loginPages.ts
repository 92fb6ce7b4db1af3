import { paths, specialtyPath } from '@/config/paths';
import type { Role, SessionUser } from '@/lib/session/storage';

// Marks English keys for scripts/check-i18n.mjs (it checks that every literal
// t() key has an English entry); they are translated where they are shown.
const t = (key: string): string => key;

export interface LoginPageText {
    title: string;
    subtitle: string;
    registerPrompt: string;
    registerLabel: string;
    registerPath: string;
    /** Spec §7/§8: shown when the server gives no message of its own. */
    fallbackError: string;
    /** Spec §8: the toast after a successful sign-in. */
    welcome: string;
}

/** What differs between the three sign-in pages of spec §2. */
export const LOGIN_PAGES: Record<Role, LoginPageText> = {
    doctor: {
        title: t('Doctor Login'),
        subtitle: t('Sign in to continue to your clinical assistant.'),
        registerPrompt: t("Don't have an account?"),
        registerLabel: t('Register as Doctor'),
        registerPath: paths.doctorRegister,
        fallbackError: t('Login failed'),
        welcome: t('Login successful!'),
    },
    hospital: {
        title: t('Hospital Login'),
        subtitle: t('Sign in to manage your doctors and subscription.'),
        registerPrompt: t("Don't have an account?"),
        registerLabel: t('Register as Hospital'),
        registerPath: paths.hospitalRegister,
        fallbackError: t('Failed to login. Please try again.'),
        welcome: t('Welcome back, Hospital!'),
    },
    admin: {
        title: t('Admin Login'),
        subtitle: t('Sign in to the administration console.'),
        // Admin accounts are created from an emailed invitation only.
        registerPrompt: t('Invited to administer Cara?'),
        registerLabel: t('Create Admin Account'),
        registerPath: paths.adminRegister,
        fallbackError: t('Failed to login. Please try again.'),
        welcome: t('Welcome back, Administrator!'),
    },
};

export const NO_TOKEN = t('No token received in login response');
const NO_SPECIALTY = t('Specialty information not found in user data');

/** Where a user lands after signing in (spec §2), or the error that stops it. */
export const destinationAfterLogin = (user: SessionUser): { path: string } | { error: string } => {
    switch (user.role) {
        case 'doctor':
            return user.specialty ? { path: specialtyPath(user.specialty) } : { error: NO_SPECIALTY };
        case 'hospital':
            return { path: paths.dashboard };
        default:
            return { path: paths.adminDashboard };
    }
};
