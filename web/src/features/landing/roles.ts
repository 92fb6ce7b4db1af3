import { paths } from '@/config/paths';

export type Choice = 'doctor' | 'hospital';

// Marks English keys for scripts/check-i18n.mjs; translated where rendered.
const t = (key: string): string => key;

/** The two roles offered on role selection (spec §1: admins have their own login). */
export const CHOICES: readonly { value: Choice; title: string; description: string; login: string }[] = [
    {
        value: 'doctor',
        title: t('Doctor'),
        description: t('Talk to your specialty assistant and manage your subscription.'),
        login: paths.doctorLogin,
    },
    {
        value: 'hospital',
        title: t('Hospital'),
        description: t('Manage your doctors and your facility subscription.'),
        login: paths.hospitalLogin,
    },
];
