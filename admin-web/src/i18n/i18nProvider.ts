import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import frenchMessages from 'ra-language-french';
import { mergeTranslations, type TranslationMessages } from 'react-admin';
import { DEFAULT_LOCALE, LOCALES, toSupportedLocale, type Locale } from './locales';
import { ar } from './messages/ar';
import { en } from './messages/en';
import { es } from './messages/es';
import { fr } from './messages/fr';
import { raArabic } from './messages/ra-ar';
import { raSpanish } from './messages/ra-es';

// English underneath every language: a key missing in a translation reads in
// English rather than as its raw key. The texts are small and bundled (spec §7).
const MESSAGES: Record<Locale, TranslationMessages> = {
    en: mergeTranslations(englishMessages, en),
    fr: mergeTranslations(englishMessages, en, frenchMessages, fr),
    es: mergeTranslations(englishMessages, en, raSpanish, es),
    ar: mergeTranslations(englishMessages, en, raArabic, ar),
};

export const createI18nProvider = (initialLocale: Locale) =>
    polyglotI18nProvider(
        locale => MESSAGES[toSupportedLocale(locale) ?? DEFAULT_LOCALE],
        initialLocale,
        [...LOCALES],
        // Unknown keys (server messages shown as-is) are not worth a console warning.
        { allowMissing: true },
    );
