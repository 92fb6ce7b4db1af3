import { useTranslation } from 'react-i18next';

import { formatLongDate, formatPrice } from '@/lib/format';

/** Prices and long dates in the reader's language, with the spec's 'N/A' / 'Invalid Date'. */
export const useFormat = () => {
    const { t, i18n } = useTranslation('subscriptions');
    const language = i18n.resolvedLanguage ?? i18n.language ?? 'en';
    return {
        price: (amount: number) => formatPrice(amount, language),
        date: (value: string | null | undefined) => {
            const text = formatLongDate(value, language);
            if (text === null) return t('N/A');
            if (text === 'invalid') return t('Invalid Date');
            return text;
        },
    };
};
