import { Suspense, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigationType } from 'react-router';

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
 * A new page opens at its top (a sign-up's form was scrolled to its submit
 * button; the console it leads to must not arrive scrolled, its heading under
 * the navbar); Back and Forward keep the browser's own scroll restoration.
 */
export const AppLayout = () => {
    const { loading } = useSession();
    const { pathname, hash } = useLocation();
    const navigation = useNavigationType();
    useLayoutEffect(() => {
        if (navigation !== 'POP' && !hash) window.scrollTo(0, 0);
    }, [pathname, navigation, hash]);
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
