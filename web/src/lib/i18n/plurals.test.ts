import i18next from 'i18next';
import { describe, expect, it } from 'vitest';

import arHospitals from '@/locales/ar/hospitals.json';
import enHospitals from '@/locales/en/hospitals.json';
import frHospitals from '@/locales/fr/hospitals.json';

// Counted text goes through i18next's plural rules (Intl.PluralRules): Arabic
// has six forms, so '13 years' is not the form used for 3 or for 1.
describe('plurals', () => {
    const instance = i18next.createInstance();
    void instance.init({
        lng: 'ar',
        fallbackLng: 'en',
        ns: ['hospitals'],
        defaultNS: 'hospitals',
        resources: { ar: { hospitals: arHospitals }, en: { hospitals: enHospitals }, fr: { hospitals: frHospitals } },
        interpolation: { escapeValue: false },
    });
    const years = (lng: string, count: number) => instance.t('{{count}} years', { lng, count });

    it('follows the Arabic plural rules', () => {
        expect(years('ar', 1)).toBe('سنة واحدة');
        expect(years('ar', 2)).toBe('سنتان');
        expect(years('ar', 3)).toBe('3 سنوات');
        expect(years('ar', 13)).toBe('13 سنة');
    });

    it('follows the English and French ones', () => {
        expect(years('en', 1)).toBe('1 year');
        expect(years('en', 5)).toBe('5 years');
        expect(years('fr', 1)).toBe('1 an');
        expect(years('fr', 0)).toBe('0 an');
        expect(years('fr', 5)).toBe('5 ans');
    });
});
