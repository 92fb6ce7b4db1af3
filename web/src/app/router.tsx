import type { ComponentType, ReactNode } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';

import { AppLayout } from '@/components/layout/AppLayout';
import { FullScreenSpinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import type { Role } from '@/lib/session/storage';
import { ProtectedRoute, RoleRedirect } from './guards/ProtectedRoute';
import { SpecialtyGate } from './guards/SpecialtyGate';
import { SubscriptionGate } from './guards/SubscriptionGate';
import { RouteError } from './RouteError';

/**
 * Every route of spec §2. Each page is its own chunk, loaded on first visit,
 * so role selection and the login pages download only what they show.
 */
type PageModule = Promise<{ default: ComponentType }>;

const page = (load: () => PageModule, wrap?: (element: ReactNode) => ReactNode): Pick<RouteObject, 'lazy'> => ({
    lazy: async () => {
        const { default: Page } = await load();
        return { element: wrap ? wrap(<Page />) : <Page /> };
    },
});

const forRoles = (roles: readonly Role[]) => (element: ReactNode) => (
    <ProtectedRoute roles={roles}>{element}</ProtectedRoute>
);
const signedIn = (element: ReactNode) => <ProtectedRoute>{element}</ProtectedRoute>;
const clinical = (element: ReactNode) => (
    <ProtectedRoute roles={['doctor']}>
        <SubscriptionGate>{element}</SubscriptionGate>
    </ProtectedRoute>
);
// A specialty's console (or the radiotherapy chat): a notice for doctors of another specialty.
const specialtyClinical =
    (specialty: string, chat = false) =>
    (element: ReactNode) =>
        clinical(
            <SpecialtyGate specialty={specialty} chat={chat}>
                {element}
            </SpecialtyGate>,
        );
const onlyDoctors = (element: ReactNode) => <RoleRedirect role="doctor">{element}</RoleRedirect>;

export const routes: RouteObject[] = [
    {
        element: <AppLayout />,
        errorElement: <RouteError />,
        // Shown while the first page's lazy chunk loads (and no 'No HydrateFallback' warning).
        hydrateFallbackElement: <FullScreenSpinner />,
        children: [
            // Public (spec §2 "Public routes")
            { path: paths.roleSelection, ...page(() => import('@/features/landing/RoleSelectionPage')) },
            { path: paths.login, ...page(() => import('@/features/landing/RoleSelectionPage')) },
            { path: paths.doctorLogin, ...page(() => import('@/features/auth/routes/DoctorLogin')) },
            { path: paths.hospitalLogin, ...page(() => import('@/features/auth/routes/HospitalLogin')) },
            { path: paths.adminLogin, ...page(() => import('@/features/auth/routes/AdminLogin')) },
            { path: paths.forgotPassword, ...page(() => import('@/features/auth/routes/ForgotPassword')) },
            { path: paths.undoEmailChange, ...page(() => import('@/features/auth/routes/UndoEmailChange')) },
            { path: paths.confirmEmailChange, ...page(() => import('@/features/auth/routes/ConfirmEmailChange')) },
            { path: paths.verifyEmail, ...page(() => import('@/features/auth/routes/VerifyEmail')) },
            { path: paths.doctorRegister, ...page(() => import('@/features/register/routes/DoctorRegister')) },
            { path: paths.hospitalRegister, ...page(() => import('@/features/register/routes/HospitalRegister')) },
            { path: paths.adminRegister, ...page(() => import('@/features/register/routes/AdminRegister')) },
            { path: paths.privacyPolicy, ...page(() => import('@/features/legal/routes/PrivacyPolicy')) },
            { path: paths.terms, ...page(() => import('@/features/legal/routes/TermsAndConditions')) },

            // Doctors (spec §2 "Protected routes", §6)
            {
                path: paths.doctorDashboard,
                ...page(() => import('@/features/doctor-dashboard/DoctorDashboardPage'), clinical),
            },
            {
                path: paths.radiologist,
                ...page(() => import('@/features/consoles/routes/RadiologistConsole'), specialtyClinical('Radiologist')),
            },
            {
                path: paths.radiotherapist,
                ...page(
                    () => import('@/features/consoles/routes/RadiotherapistConsole'),
                    specialtyClinical('Radiotherapist'),
                ),
            },
            {
                path: paths.radiotherapistChat,
                ...page(() => import('@/features/chat/routes/RadiotherapyChat'), specialtyClinical('Radiotherapist', true)),
            },
            {
                path: paths.cardiologist,
                ...page(() => import('@/features/consoles/routes/CardiologistConsole'), specialtyClinical('Cardiologist')),
            },
            {
                path: paths.generalPractitioner,
                ...page(
                    () => import('@/features/consoles/routes/GeneralPractitionerConsole'),
                    specialtyClinical('General Practitioner'),
                ),
            },
            { path: paths.nurse, ...page(() => import('@/features/consoles/routes/NurseConsole'), specialtyClinical('Nurse')) },
            { path: paths.assistant, ...page(() => import('@/features/consoles/routes/GenericConsole'), clinical) },
            {
                path: paths.consultations,
                ...page(() => import('@/features/consultations/routes/ConsultationsPage'), clinical),
            },
            {
                path: paths.consultation,
                ...page(() => import('@/features/consultations/routes/ConsultationPage'), clinical),
            },
            {
                path: paths.doctorSubscription,
                ...page(() => import('@/features/subscriptions/routes/DoctorSubscriptionPage'), onlyDoctors),
            },
            {
                path: paths.subscriptionSuccess,
                ...page(
                    () => import('@/features/subscriptions/routes/SubscriptionSuccessPage'),
                    forRoles(['doctor', 'hospital']),
                ),
            },

            // Hospitals
            // Signed-in only: the pages show their own notices to other roles (spec §2).
            { path: paths.dashboard, ...page(() => import('@/features/hospitals/routes/HospitalDashboard'), signedIn) },
            { path: paths.manage, ...page(() => import('@/features/hospitals/routes/ManageDoctors'), signedIn) },
            {
                path: paths.subscription,
                ...page(() => import('@/features/subscriptions/routes/HospitalSubscriptionPage'), forRoles(['hospital'])),
            },
            { path: paths.security, ...page(() => import('@/features/hospitals/routes/SecurityLog'), forRoles(['hospital'])) },
            {
                path: paths.doctorNotes,
                ...page(() => import('@/features/consultations/routes/DoctorNotesPage'), forRoles(['hospital'])),
            },

            // Admins use the react-admin console at /admin/.
            { path: paths.adminDashboard, ...page(() => import('@/features/admin/AdminDashboardRedirect')) },

            { path: paths.profile, ...page(() => import('@/features/profile/routes/ProfilePage'), signedIn) },
            { path: '*', ...page(() => import('./NotFound')) },
        ],
    },
];

export const createRouter = () => createBrowserRouter(routes);
