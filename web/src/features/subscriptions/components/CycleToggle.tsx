import { useTranslation } from 'react-i18next';

import type { BillingCycle } from '../api';

/** Monthly/Annual toggle of the doctor page, with the 'Save 15%' badge on annual (spec §2, §9). */
export const CycleToggle = ({ value, onChange }: { value: BillingCycle; onChange: (cycle: BillingCycle) => void }) => {
    const { t } = useTranslation('subscriptions');
    return (
        <div className="sub-cycle" role="group" aria-label={t('Billing cycle')}>
            <button
                type="button"
                className="sub-cycle-option"
                aria-pressed={value === 'monthly'}
                onClick={() => onChange('monthly')}
            >
                {t('Monthly')}
            </button>
            <button
                type="button"
                className="sub-cycle-option"
                aria-pressed={value === 'annual'}
                onClick={() => onChange('annual')}
            >
                {t('Annual')}
                <span className="sub-badge sub-badge-save">{t('Save 15%')}</span>
            </button>
        </div>
    );
};
