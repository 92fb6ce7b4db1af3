import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router';

import { ROUTES_BEFORE_SESSION, ROUTES_WITHOUT_NAVBAR } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import { FullScreenSpinner } from '../ui/Spinner';
import { Navbar } from './Navbar';
import { PreferencesBar } from './Preferences';

/**
 * The shell around every route: the navbar where spec §2 shows it (once the
 * user has loaded), a language/theme bar where it does not, and the spinner
 * while a lazy route or its translations load, or (except on the entry pages)
 * while the session is restored.
 */
export const AppLayout = () => {
    const { loading } = useSession();
    const { pathname } = useLocation();
    const withNavbar = !ROUTES_WITHOUT_NAVBAR.includes(pathname);
    if (loading && !ROUTES_BEFORE_SESSION.includes(pathname)) return <FullScreenSpinner />;
    return (
        <>
            <a className="skip-link" href="#content">
                <SkipText />
            </a>
            {withNavbar ? <Navbar /> : <PreferencesBar />}
            <div id="content" className="content">
                <Suspense fallback={<FullScreenSpinner />}>
                    <Outlet />
                </Suspense>
            </div>
        </>
    );
};

const SkipText = () => {
    const { t } = useTranslation();
    return <>{t('Skip to content')}</>;
};
