import { Suspense, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, matchRoutes, type RouteObject } from 'react-router';

import { AppLayout } from '@/components/layout/AppLayout';
import { FullScreenSpinner } from '@/components/ui/Spinner';
import { paths } from '@/config/paths';
import AdminLogin from '@/features/auth/routes/AdminLogin';
import DoctorLogin from '@/features/auth/routes/DoctorLogin';
import HospitalLogin from '@/features/auth/routes/HospitalLogin';
import RoleSelectionPage from '@/features/landing/RoleSelectionPage';
import type { Role } from '@/lib/session/storage';
import { ProtectedRoute, RoleRedirect } from './guards/ProtectedRoute';
import { SpecialtyGate } from './guards/SpecialtyGate';
import { SubscriptionGate } from './guards/SubscriptionGate';
import { RouteError } from './RouteError';

/**
 * Every route of spec §2. Each page is its own chunk, loaded on first visit,
 * except the entry pages a visitor lands on (role selection and the three
 * sign-in pages, ~8 kB gzip together): they travel with the app's own code, so
 * on a slow link the form does not wait for one more round trip after it.
 */
type PageModule = Promise<{ default: ComponentType }>;

const page = (load: () => PageModule, wrap?: (element: ReactNode) => ReactNode): Pick<RouteObject, 'lazy'> => ({
    lazy: async () => {
        const { default: Page } = await load();
        // A page that suspends (its translations still loading) does so inside its guards, which
        // stay mounted: under Preact's Suspense they would be mounted again and check again.
        return {
            element: wrap ? (
                wrap(
                    <Suspense fallback={<FullScreenSpinner />}>
                        <Page />
                    </Suspense>,
                )
            ) : (
                <Page />
            ),
        };
    },
});

const eager = (Page: ComponentType): Pick<RouteObject, 'element'> => ({ element: <Page /> });

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
            { path: paths.roleSelection, handle: { ns: ['auth'] }, ...eager(RoleSelectionPage) },
            { path: paths.login, handle: { ns: ['auth'] }, ...eager(RoleSelectionPage) },
            { path: paths.doctorLogin, handle: { ns: ['auth'] }, ...eager(DoctorLogin) },
            { path: paths.hospitalLogin, handle: { ns: ['auth'] }, ...eager(HospitalLogin) },
            { path: paths.adminLogin, handle: { ns: ['auth'] }, ...eager(AdminLogin) },
            { path: paths.forgotPassword, handle: { ns: ['auth'] }, ...page(() => import('@/features/auth/routes/ForgotPassword')) },
            { path: paths.undoEmailChange, handle: { ns: ['auth'] }, ...page(() => import('@/features/auth/routes/UndoEmailChange')) },
            { path: paths.confirmEmailChange, handle: { ns: ['auth'] }, ...page(() => import('@/features/auth/routes/ConfirmEmailChange')) },
            { path: paths.verifyEmail, handle: { ns: ['auth'] }, ...page(() => import('@/features/auth/routes/VerifyEmail')) },
            { path: paths.doctorRegister, handle: { ns: ['register'] }, ...page(() => import('@/features/register/routes/DoctorRegister')) },
            { path: paths.hospitalRegister, handle: { ns: ['register'] }, ...page(() => import('@/features/register/routes/HospitalRegister')) },
            { path: paths.adminRegister, handle: { ns: ['register'] }, ...page(() => import('@/features/register/routes/AdminRegister')) },
            { path: paths.completeSignup, handle: { ns: ['register'] }, ...page(() => import('@/features/register/routes/CompleteSignup')) },
            { path: paths.privacyPolicy, handle: { ns: ['legal'] }, ...page(() => import('@/features/legal/routes/PrivacyPolicy')) },
            { path: paths.terms, handle: { ns: ['legal'] }, ...page(() => import('@/features/legal/routes/TermsAndConditions')) },

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
                path: paths.signedNotes,
                ...page(() => import('@/features/consultations/routes/DoctorNotesPage'), forRoles(['hospital'])),
            },
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

/**
 * The translation namespaces a first load of `pathname` needs besides 'common'
 * (a public route's `handle.ns`): fetched with 'common' before the first render,
 * instead of one more round trip once the page asks for them.
 */
export const namespacesFor = (pathname: string): string[] =>
    (matchRoutes(routes, pathname) ?? []).flatMap(match => (match.route.handle as { ns?: string[] } | undefined)?.ns ?? []);

/** Creating the router starts loading the first page's chunk (its lazy route) at once. */
export const createRouter = () => createBrowserRouter(routes);
