import { useTranslation } from 'react-i18next';

import type { components } from '@/lib/api/schema';
import { formatDateTime } from '../format';
import { useConsoleName } from './StateBadge';

type PatientReference = components['schemas']['PatientReference'];

/**
 * A consultation's heading: the doctor's own title, else one made from the patient (name, or
 * record number), the console and when it started, so no list is a column of "Untitled".
 */
export const useConsultationTitle = () => {
    const { t, i18n } = useTranslation('consultations');
    const consoleName = useConsoleName();
    const language = i18n.resolvedLanguage ?? 'en';
    return (item: {
        title?: string | null;
        console: string;
        startedAt: string;
        patientReference?: PatientReference | null;
    }): string => {
        if (item.title?.trim()) return item.title;
        const reference = item.patientReference;
        const patient =
            reference?.name?.trim() ||
            (reference?.recordNumber ? t('Record {{number}}', { number: reference.recordNumber }) : '');
        return [patient, t('{{console}} consultation', { console: consoleName(item.console) }), formatDateTime(item.startedAt, language)]
            .filter(Boolean)
            .join(' · ');
    };
};
