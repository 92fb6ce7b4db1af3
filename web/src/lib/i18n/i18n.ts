import i18n, { type BackendModule, type ReadCallback } from 'i18next';
import { initReactI18next } from 'react-i18next';

import enAuth from '../../locales/en/auth.json';
import enCommon from '../../locales/en/common.json';

/**
 * Four interface languages (spec §1). Keys are the spec's English texts, so
 * the English files map a text to itself and a missing translation falls back
 * to readable English. Files are bundled (spec §7) but each language is its
 * own chunk, loaded when chosen: a visitor downloads one language, not four.
 *
 * The choice is remembered under localStorage `locale` (shared with the admin
 * console); without one, the browser's languages decide; English otherwise.
 */
export const LANGUAGES = ['en', 'fr', 'es', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_NAMES: Record<Language, string> = {
    en: 'English',
    fr: 'Français',
    es: 'Español',
    ar: 'العربية',
};
export const NAMESPACES = ['common', 'auth', 'register', 'legal', 'pages'] as const;
const LOCALE_KEY = 'locale';
const RTL: ReadonlySet<string> = new Set(['ar']);

const toLanguage = (value: string | null | undefined): Language | undefined => {
    const base = value?.toLowerCase().split(/[-_]/)[0];
    return LANGUAGES.find(language => language === base);
};

export const detectLanguage = (): Language => {
    try {
        const stored = toLanguage(localStorage.getItem(LOCALE_KEY));
        if (stored) return stored;
    } catch {
        // storage disabled: fall through to the browser's preference
    }
    for (const candidate of navigator.languages ?? [navigator.language]) {
        const found = toLanguage(candidate);
        if (found) return found;
    }
    return 'en';
};

export const applyDocumentLanguage = (language: string): void => {
    document.documentElement.lang = language;
    document.documentElement.dir = RTL.has(language) ? 'rtl' : 'ltr';
};

const files = import.meta.glob<{ default: Record<string, string> }>('../../locales/*/*.json');
// English (every language's fallback) of what the entry pages show travels with the app's
// code: an English visitor's sign-in form needs no request after the scripts.
const bundled: Record<string, Record<string, string>> = { 'en/common': enCommon, 'en/auth': enAuth };

const bundledFiles: BackendModule = {
    type: 'backend',
    init() {},
    read(language: string, namespace: string, callback: ReadCallback) {
        const inBundle = bundled[`${language}/${namespace}`];
        if (inBundle) {
            callback(null, inBundle);
            return;
        }
        const load = files[`../../locales/${language}/${namespace}.json`];
        if (!load) {
            callback(null, {});
            return;
        }
        load().then(
            module => callback(null, module.default),
            (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
        );
    },
};

/** `namespaces`: loaded with 'common' before the first render (the first page's own). */
export const initI18n = async (namespaces: readonly string[] = []): Promise<typeof i18n> => {
    const language = detectLanguage();
    applyDocumentLanguage(language);
    i18n.on('languageChanged', applyDocumentLanguage);
    await i18n
        .use(bundledFiles)
        .use(initReactI18next)
        .init({
            lng: language,
            fallbackLng: 'en',
            supportedLngs: [...LANGUAGES],
            ns: ['common', ...namespaces],
            defaultNS: 'common',
            fallbackNS: 'common',
            // Keys are English sentences: '.' and ':' are text, not separators.
            keySeparator: false,
            nsSeparator: false,
            interpolation: { escapeValue: false }, // React escapes
            returnEmptyString: false,
            react: { useSuspense: true },
        });
    return i18n;
};

export const changeLanguage = async (language: Language): Promise<void> => {
    try {
        localStorage.setItem(LOCALE_KEY, language);
    } catch {
        // not remembered, still applied
    }
    await i18n.changeLanguage(language);
};
