/**
 * The one table of routes (spec §2). Components link with `paths.x`, never
 * with string literals, so a renamed route is a one-line change.
 */
export const paths = {
    roleSelection: '/',
    login: '/login',
    doctorLogin: '/doctor-login',
    hospitalLogin: '/hospital-login',
    adminLogin: '/admin-login',
    doctorRegister: '/doctor-register',
    hospitalRegister: '/hospital-register',
    adminRegister: '/admin-register',
    /** The link mailed after a doctor or hospital signs themselves up (cara.registration). */
    completeSignup: '/complete-signup',
    forgotPassword: '/forgot-password',
    /** Links mailed after a sign-in email change (cara.auth.service). */
    undoEmailChange: '/undo-email-change',
    confirmEmailChange: '/confirm-email-change',
    verifyEmail: '/verify-email',
    privacyPolicy: '/privacy-policy',
    terms: '/terms-and-conditions',

    doctorDashboard: '/doctor-dashboard',
    radiologist: '/radiologist',
    radiotherapist: '/radiotherapist',
    radiotherapistChat: '/radiotherapist-chat',
    cardiologist: '/cardiologist',
    generalPractitioner: '/general-practitioner',
    nurse: '/nurse',
    /** The generic assistant console (spec §2): summaries and report drafts with a focus topic. */
    assistant: '/assistant',
    consultations: '/consultations',
    consultation: '/consultations/:id',
    doctorSubscription: '/doctor-subscription',
    subscriptionSuccess: '/subscription-success',
    subscription: '/subscription',
    dashboard: '/dashboard',
    manage: '/manage',
    /** A hospital's own audit log. */
    security: '/security',
    /** A hospital's read-only view of its doctors' signed notes: all of them, or one doctor's. */
    signedNotes: '/signed-notes',
    doctorNotes: '/doctors/:doctorId/notes',
    adminDashboard: '/admin-dashboard',
    /** The react-admin console (admin-web), a separate app on the same origin. */
    adminConsole: '/admin/',
    profile: '/profile',
} as const;

export const consultationPath = (id: string): string => `/consultations/${encodeURIComponent(id)}`;
export const doctorNotesPath = (doctorId: string): string => `/doctors/${encodeURIComponent(doctorId)}/notes`;

export const SPECIALTIES = [
    'Radiologist',
    'Radiotherapist',
    'Cardiologist',
    'General Practitioner',
    'Nurse',
] as const;
export type Specialty = (typeof SPECIALTIES)[number];

/** Spec §2: the specialty lower-cased with spaces replaced by hyphens. */
export const specialtyPath = (specialty: string): string =>
    `/${specialty.trim().toLowerCase().replace(/\s+/g, '-')}`;

/** Routes without the navigation bar (spec §2 "Protected routes", last bullet). */
export const ROUTES_WITHOUT_NAVBAR: readonly string[] = [
    paths.roleSelection,
    paths.login,
    paths.doctorLogin,
    paths.hospitalLogin,
    paths.adminLogin,
    paths.doctorRegister,
    paths.hospitalRegister,
    paths.adminRegister,
    paths.completeSignup,
    paths.forgotPassword,
    paths.doctorSubscription,
    paths.subscriptionSuccess,
];

/**
 * Entry pages drawn without waiting for the session restore (POST /api/auth/refresh):
 * a visitor on a slow link sees the sign-in and sign-up forms as soon as the page's
 * code has arrived. Anything else waits, as it depends on who is signed in.
 */
export const ROUTES_BEFORE_SESSION: readonly string[] = [
    paths.roleSelection,
    paths.login,
    paths.doctorLogin,
    paths.hospitalLogin,
    paths.adminLogin,
    paths.doctorRegister,
    paths.hospitalRegister,
    paths.adminRegister,
];
