import { CacheProvider, type EmotionCache } from '@emotion/react';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { Admin, CustomRoutes, Resource } from 'react-admin';
import { Navigate, Route } from 'react-router-dom';
import aiUsage from './ai-usage';
import audit from './audit';
import { Dashboard } from './dashboard/Dashboard';
import doctors from './doctors';
import hospitals from './hospitals';
import { createI18nProvider } from './i18n/i18nProvider';
import { detectLocale, isRightToLeft, LOCALE_STORAGE_KEY, toSupportedLocale } from './i18n/locales';
import { Layout } from './layout/Layout';
import { Notification } from './layout/Notification';
import { loadRtlCache, ltrCache, themesFor } from './layout/theme';
import { authProvider } from './lib/authProvider';
import { dataProvider } from './lib/dataProvider';
import { createPreferencesStore } from './lib/store';
import { LoginPage } from './login/LoginPage';
import payments from './payments';

const store = createPreferencesStore();
const initialLocale = detectLocale();
const i18nProvider = createI18nProvider(initialLocale);

const subscribeToLocale = (onChange: () => void) => store.subscribe(LOCALE_STORAGE_KEY, onChange);
const currentLocale = () => toSupportedLocale(store.getItem(LOCALE_STORAGE_KEY)) ?? initialLocale;

/** The emotion cache and MUI theme follow the language's writing direction. */
const useDirection = () => {
    const locale = useSyncExternalStore(subscribeToLocale, currentLocale);
    const rtl = isRightToLeft(locale);
    const [rtlCache, setRtlCache] = useState<EmotionCache | null>(null);
    useEffect(() => {
        if (rtl && !rtlCache) void loadRtlCache().then(setRtlCache);
    }, [rtl, rtlCache]);
    // Until the RTL styles are loaded, stay on the LTR cache (the page already has dir="rtl").
    const cache = rtl && rtlCache ? rtlCache : ltrCache;
    // The spinners' accessible name in the interface language.
    const themes = useMemo(
        () => themesFor(rtl ? 'rtl' : 'ltr', i18nProvider.translate('ra.page.loading', { _: 'Loading' })),
        [rtl, locale],
    );
    return { cache, themes };
};

export const App = () => {
    const { cache, themes } = useDirection();
    return (
        <CacheProvider value={cache}>
            <Admin
                title="Cara Admin"
                dataProvider={dataProvider}
                authProvider={authProvider}
                i18nProvider={i18nProvider}
                store={store}
                dashboard={Dashboard}
                loginPage={LoginPage}
                layout={Layout}
                notification={Notification}
                theme={themes.light}
                darkTheme={themes.dark}
                defaultTheme="light"
                requireAuth
                disableTelemetry
            >
                <Resource name="hospitals" {...hospitals} />
                <Resource name="doctors" {...doctors} />
                <Resource name="payment-history" {...payments} />
                <Resource name="audit-events" {...audit} />
                <Resource name="ai-usage" {...aiUsage} />
                <CustomRoutes>
                    {/* The spec links the dashboard as /admin/dashboard too. */}
                    <Route path="/dashboard" element={<Navigate to="/" replace />} />
                </CustomRoutes>
            </Admin>
        </CacheProvider>
    );
};
