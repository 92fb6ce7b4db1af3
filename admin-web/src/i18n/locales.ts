/**
 * Interface languages (spec §9): en, fr, es, ar; fallback en; the choice is
 * remembered in localStorage `locale` (shared with the main web app), the
 * browser language is the second source.
 */

export const LOCALES = [
    { locale: 'en', name: 'English' },
    { locale: 'fr', name: 'Français' },
    { locale: 'es', name: 'Español' },
    { locale: 'ar', name: 'العربية' },
] as const;

export type Locale = (typeof LOCALES)[number]['locale'];

export const DEFAULT_LOCALE: Locale = 'en';
export const LOCALE_STORAGE_KEY = 'locale';

const RTL_LOCALES: ReadonlySet<Locale> = new Set<Locale>(['ar']);

/** 'fr', 'fr-FR', 'FR_ca' → 'fr'; anything unsupported → undefined. */
export const toSupportedLocale = (value: unknown): Locale | undefined => {
    if (typeof value !== 'string') return undefined;
    const language = value.trim().toLowerCase().split(/[-_]/)[0];
    return LOCALES.find(entry => entry.locale === language)?.locale;
};

export const storedLocale = (): Locale | undefined => {
    try {
        return toSupportedLocale(localStorage.getItem(LOCALE_STORAGE_KEY));
    } catch {
        return undefined;
    }
};

export const detectLocale = (): Locale => {
    const fromStorage = storedLocale();
    if (fromStorage) return fromStorage;
    const browser = typeof navigator !== 'undefined' ? (navigator.languages ?? [navigator.language]) : [];
    for (const language of browser) {
        const supported = toSupportedLocale(language);
        if (supported) return supported;
    }
    return DEFAULT_LOCALE;
};

export const isRightToLeft = (locale: string): boolean => RTL_LOCALES.has(locale as Locale);

/** `<html lang dir>` follow the language: Arabic is laid out right to left. */
export const applyDocumentLocale = (locale: Locale): void => {
    document.documentElement.lang = locale;
    document.documentElement.dir = isRightToLeft(locale) ? 'rtl' : 'ltr';
};
