import { useTranslation } from 'react-i18next';

import '../hospitals.css';

/** A doctor's Active/Inactive badge (spec §2): the word is shown, not only the colour. */
export const StatusBadge = ({ active }: { active: boolean }) => {
    const { t } = useTranslation('hospitals');
    return (
        <span className={`hosp-badge ${active ? 'hosp-badge-active' : 'hosp-badge-inactive'}`} data-testid="doctor-status">
            {active ? t('Active') : t('Inactive')}
        </span>
    );
};

/** Known subscription statuses in the interface language; anything else shows as sent (spec §4). */
const STATUS_KEYS: Record<string, string> = {
    inactive: 'inactive',
    trialing: 'trialing',
    past_due: 'past_due',
    canceled: 'canceled',
    unpaid: 'unpaid',
    incomplete: 'incomplete',
    incomplete_expired: 'incomplete_expired',
    paused: 'paused',
    error: 'error',
};

/** The plan's badge: Active for 'active', else its raw status, or 'inactive' without one. */
export const PlanStatusBadge = ({ status }: { status: string | null | undefined }) => {
    const { t } = useTranslation('hospitals');
    const active = status === 'active';
    const raw = status || 'inactive';
    const key = STATUS_KEYS[raw];
    return (
        <span className={`hosp-badge ${active ? 'hosp-badge-active' : 'hosp-badge-inactive'}`} data-testid="plan-status">
            {active ? t('Active') : key ? t(key) : raw}
        </span>
    );
};
