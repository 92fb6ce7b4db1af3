import type { TFunction } from 'i18next';

import { paths, specialtyPath } from '@/config/paths';
import type { SessionUser } from '@/lib/session/storage';

/** One link of the navbar: where it goes, its text, and a stable name for tests. */
export interface NavItem {
    to: string;
    label: string;
    id: string;
}

/**
 * Where a signed-in user lands (the brand link, a login page's redirect, a
 * specialty notice's way back): a doctor's own specialty console (the
 * dashboard for a doctor without one), a hospital's dashboard, the admin
 * console.
 */
export const homePath = (user: SessionUser): string => {
    if (user.role === 'hospital') return paths.dashboard;
    if (user.role === 'admin') return paths.adminDashboard;
    return user.specialty ? specialtyPath(user.specialty) : paths.doctorDashboard;
};

/**
 * The navbar's links by role, in order (the routes' map in docs/architecture.md,
 * "Web app layers"). A doctor's gated pages stay listed without a subscription:
 * the subscription gate sends them to the plans.
 */
export const navigationFor = (user: SessionUser, t: TFunction): NavItem[] => {
    const profile: NavItem = { to: paths.profile, label: t('Profile'), id: 'profile' };
    if (user.role === 'hospital') {
        return [
            { to: paths.dashboard, label: t('Dashboard'), id: 'dashboard' },
            { to: paths.manage, label: t('Doctors'), id: 'doctors' },
            { to: paths.signedNotes, label: t('Signed notes'), id: 'signed-notes' },
            { to: paths.security, label: t('Security'), id: 'security' },
            { to: paths.subscription, label: t('Subscription'), id: 'subscription' },
            profile,
        ];
    }
    if (user.role === 'admin') {
        return [{ to: paths.adminDashboard, label: t('Dashboard'), id: 'dashboard' }, profile];
    }
    const items: NavItem[] = [];
    if (user.specialty) items.push({ to: specialtyPath(user.specialty), label: t('My console'), id: 'console' });
    items.push({ to: paths.assistant, label: t('General assistant'), id: 'assistant' });
    if (user.specialty === 'Radiotherapist') items.push({ to: paths.radiotherapistChat, label: t('Chat'), id: 'chat' });
    items.push(
        { to: paths.consultations, label: t('Consultations'), id: 'consultations' },
        { to: paths.doctorDashboard, label: t('Dashboard'), id: 'dashboard' },
        { to: paths.doctorSubscription, label: t('Subscription'), id: 'subscription' },
        profile,
    );
    return items;
};
