import { describe, expect, it } from 'vitest';

import { COUNTRIES, countryOptions } from './countries';

describe('countries', () => {
    it('is one list of Africa and the Caribbean, ISO 3166 codes, no duplicates', () => {
        const codes = COUNTRIES.map(country => country.code);
        expect(new Set(codes).size).toBe(codes.length);
        for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
        for (const code of ['GH', 'KE', 'ZA', 'JM', 'TT', 'BB', 'HT', 'GY']) expect(codes).toContain(code);
    });

    it('names countries in the interface language, sorted for its readers', () => {
        const french = countryOptions(COUNTRIES, 'fr');
        expect(french.find(option => option.value === 'Ivory Coast')?.label).toBe('Côte d’Ivoire');
        const arabic = countryOptions(COUNTRIES, 'ar');
        expect(arabic.find(option => option.value === 'Jamaica')?.label).toBe('جامايكا');
        // The value sent to the server stays the English name.
        expect(arabic.map(option => option.value).sort()).toEqual(COUNTRIES.map(country => country.name).sort());
    });
});
