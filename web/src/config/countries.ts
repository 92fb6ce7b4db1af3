/**
 * Country choices of every form that asks for one (doctor and hospital
 * registration, a hospital's doctor form): one list, COUNTRIES, covering
 * Africa and the Caribbean the product is for. The value
 * sent to the API is always the English name (the server and the Manage
 * Doctors screen store and compare those); only the visible label follows the
 * interface language. Labels come from the browser's own region names
 * (Intl.DisplayNames) by ISO 3166 code, so no country list has to be
 * translated by hand; English keeps the spec's names (Swaziland, Ivory Coast).
 */
export interface Country {
    /** The English name: the value sent to the server. */
    name: string;
    /** ISO 3166-1 alpha-2, for the localised label. */
    code: string;
}

/** African countries, Algeria through Zimbabwe. */
export const AFRICAN_COUNTRIES: readonly Country[] = [
    { name: 'Algeria', code: 'DZ' },
    { name: 'Angola', code: 'AO' },
    { name: 'Benin', code: 'BJ' },
    { name: 'Botswana', code: 'BW' },
    { name: 'Burkina Faso', code: 'BF' },
    { name: 'Burundi', code: 'BI' },
    { name: 'Cameroon', code: 'CM' },
    { name: 'Cape Verde', code: 'CV' },
    { name: 'Central African Republic', code: 'CF' },
    { name: 'Chad', code: 'TD' },
    { name: 'Comoros', code: 'KM' },
    { name: 'Democratic Republic of the Congo', code: 'CD' },
    { name: 'Djibouti', code: 'DJ' },
    { name: 'Egypt', code: 'EG' },
    { name: 'Equatorial Guinea', code: 'GQ' },
    { name: 'Eritrea', code: 'ER' },
    { name: 'Ethiopia', code: 'ET' },
    { name: 'Gabon', code: 'GA' },
    { name: 'Gambia', code: 'GM' },
    { name: 'Ghana', code: 'GH' },
    { name: 'Guinea', code: 'GN' },
    { name: 'Guinea-Bissau', code: 'GW' },
    { name: 'Ivory Coast', code: 'CI' },
    { name: 'Kenya', code: 'KE' },
    { name: 'Lesotho', code: 'LS' },
    { name: 'Liberia', code: 'LR' },
    { name: 'Libya', code: 'LY' },
    { name: 'Madagascar', code: 'MG' },
    { name: 'Malawi', code: 'MW' },
    { name: 'Mali', code: 'ML' },
    { name: 'Mauritania', code: 'MR' },
    { name: 'Mauritius', code: 'MU' },
    { name: 'Morocco', code: 'MA' },
    { name: 'Mozambique', code: 'MZ' },
    { name: 'Namibia', code: 'NA' },
    { name: 'Niger', code: 'NE' },
    { name: 'Nigeria', code: 'NG' },
    { name: 'Republic of the Congo', code: 'CG' },
    { name: 'Rwanda', code: 'RW' },
    { name: 'Sao Tome and Principe', code: 'ST' },
    { name: 'Senegal', code: 'SN' },
    { name: 'Seychelles', code: 'SC' },
    { name: 'Sierra Leone', code: 'SL' },
    { name: 'Somalia', code: 'SO' },
    { name: 'South Africa', code: 'ZA' },
    { name: 'South Sudan', code: 'SS' },
    { name: 'Sudan', code: 'SD' },
    { name: 'Swaziland', code: 'SZ' },
    { name: 'Tanzania', code: 'TZ' },
    { name: 'Togo', code: 'TG' },
    { name: 'Tunisia', code: 'TN' },
    { name: 'Uganda', code: 'UG' },
    { name: 'Zambia', code: 'ZM' },
    { name: 'Zimbabwe', code: 'ZW' },
];

/** The Caribbean: its sovereign states (with Belize, Guyana and Suriname of CARICOM) and its territories. */
export const CARIBBEAN_COUNTRIES: readonly Country[] = [
    { name: 'Anguilla', code: 'AI' },
    { name: 'Antigua and Barbuda', code: 'AG' },
    { name: 'Aruba', code: 'AW' },
    { name: 'Bahamas', code: 'BS' },
    { name: 'Barbados', code: 'BB' },
    { name: 'Belize', code: 'BZ' },
    { name: 'British Virgin Islands', code: 'VG' },
    { name: 'Cayman Islands', code: 'KY' },
    { name: 'Cuba', code: 'CU' },
    { name: 'Curaçao', code: 'CW' },
    { name: 'Dominica', code: 'DM' },
    { name: 'Dominican Republic', code: 'DO' },
    { name: 'Grenada', code: 'GD' },
    { name: 'Guadeloupe', code: 'GP' },
    { name: 'Guyana', code: 'GY' },
    { name: 'Haiti', code: 'HT' },
    { name: 'Jamaica', code: 'JM' },
    { name: 'Martinique', code: 'MQ' },
    { name: 'Montserrat', code: 'MS' },
    { name: 'Puerto Rico', code: 'PR' },
    { name: 'Saint Kitts and Nevis', code: 'KN' },
    { name: 'Saint Lucia', code: 'LC' },
    { name: 'Saint Vincent and the Grenadines', code: 'VC' },
    { name: 'Sint Maarten', code: 'SX' },
    { name: 'Suriname', code: 'SR' },
    { name: 'Trinidad and Tobago', code: 'TT' },
    { name: 'Turks and Caicos Islands', code: 'TC' },
    { name: 'U.S. Virgin Islands', code: 'VI' },
];

/** The one list every form offers, in English alphabetical order (countryOptions sorts per language). */
export const COUNTRIES: readonly Country[] = [...AFRICAN_COUNTRIES, ...CARIBBEAN_COUNTRIES].sort((a, b) =>
    a.name.localeCompare(b.name, 'en'),
);

const regionNames = (language: string): Intl.DisplayNames | null => {
    try {
        return new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
    } catch {
        return null; // an engine without DisplayNames: English names are still correct values
    }
};

/**
 * Select options for `countries` in `language`, sorted the way a reader of
 * that language expects (Algeria is not first in Arabic).
 */
export const countryOptions = (
    countries: readonly Country[],
    language: string,
): { value: string; label: string }[] => {
    if (language === 'en') return countries.map(country => ({ value: country.name, label: country.name }));
    const names = regionNames(language);
    const options = countries.map(country => ({
        value: country.name,
        label: names?.of(country.code) ?? country.name,
    }));
    const collator = new Intl.Collator(language);
    return options.sort((a, b) => collator.compare(a.label, b.label));
};
