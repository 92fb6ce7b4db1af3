import { useTranslation } from 'react-i18next';

/** A consultation's state in words (not only colour): in progress, draft or signed. */
export const StateBadge = ({ state }: { state: string }) => {
    const { t } = useTranslation('consultations');
    const label =
        state === 'signed' ? t('Signed') : state === 'draft' ? t('Draft') : state === 'in_progress' ? t('In progress') : state;
    return (
        <span className={`cons-badge cons-badge-${state}`} data-testid="consultation-state" data-state={state}>
            {label}
        </span>
    );
};

/** The console a consultation was held in, in words. */
export const useConsoleName = () => {
    const { t } = useTranslation('consultations');
    return (console: string): string =>
        ({
            radiologist: t('Radiology'),
            radiotherapist: t('Radiotherapy'),
            cardiologist: t('Cardiology'),
            'general-practitioner': t('Primary care'),
            nurse: t('Nursing'),
            generic: t('General'),
        })[console] ?? console;
};
