import { localStorageStore, type Store } from 'react-admin';
import { applyDocumentLocale, DEFAULT_LOCALE, LOCALE_STORAGE_KEY, toSupportedLocale } from '../i18n/locales';

type Listener = (value: unknown) => void;

/**
 * Preferences shared with the main web app live under plain localStorage keys
 * (`locale`, `theme`: same origin, same keys); everything else react-admin
 * keeps (list params, column choices) stays under its own prefix.
 */
const SHARED: Record<string, (value: unknown) => string | undefined> = {
    [LOCALE_STORAGE_KEY]: toSupportedLocale,
    theme: value => (value === 'light' || value === 'dark' ? value : undefined),
};

/**
 * react-admin's Store, with the shared preferences redirected. `reset()` (run
 * at logout) leaves them alone: a language choice outlives a session.
 */
export const createPreferencesStore = (): Store => {
    const inner = localStorageStore('1', 'CaraAdmin');
    const listeners = new Map<string, Set<Listener>>();

    const read = (key: string) => {
        try {
            return SHARED[key](localStorage.getItem(key));
        } catch {
            return undefined;
        }
    };

    const write = (key: string, value: unknown) => {
        const valid = value == null ? undefined : SHARED[key](value);
        try {
            if (valid === undefined) localStorage.removeItem(key);
            else localStorage.setItem(key, valid);
        } catch {
            // Private mode without storage: the choice lasts for this page only.
        }
        if (key === LOCALE_STORAGE_KEY) applyDocumentLocale(toSupportedLocale(valid) ?? DEFAULT_LOCALE);
        listeners.get(key)?.forEach(listener => listener(valid));
    };

    const isShared = (key: string) => Object.hasOwn(SHARED, key);

    // A language or theme chosen in another tab (of either app) applies here too.
    const follow = (event: StorageEvent) => {
        for (const key of Object.keys(SHARED)) {
            if (event.key !== key && event.key !== null) continue;
            const value = read(key);
            if (key === LOCALE_STORAGE_KEY) applyDocumentLocale(toSupportedLocale(value) ?? DEFAULT_LOCALE);
            listeners.get(key)?.forEach(listener => listener(value));
        }
    };

    return {
        setup: () => {
            inner.setup();
            window.addEventListener('storage', follow);
        },
        teardown: () => {
            inner.teardown();
            window.removeEventListener('storage', follow);
        },
        getItem: <T = unknown>(key: string, defaultValue?: T): T | undefined =>
            isShared(key) ? ((read(key) as T | undefined) ?? defaultValue) : inner.getItem<T>(key, defaultValue),
        setItem: <T = unknown>(key: string, value: T) =>
            isShared(key) ? write(key, value) : inner.setItem<T>(key, value),
        removeItem: (key: string) => (isShared(key) ? write(key, undefined) : inner.removeItem(key)),
        removeItems: (keyPrefix: string) => inner.removeItems(keyPrefix),
        reset: () => inner.reset(),
        subscribe: (key: string, callback: Listener) => {
            if (!isShared(key)) return inner.subscribe(key, callback);
            const forKey = listeners.get(key) ?? new Set<Listener>();
            forKey.add(callback);
            listeners.set(key, forKey);
            return () => {
                forKey.delete(callback);
            };
        },
        listItems: inner.listItems,
    };
};
