import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/**
 * Shown when a route fails to render or its chunk fails to load (e.g. a
 * deploy replaced the files while the tab was open): reload fetches them anew.
 */
export const RouteError = () => {
    const { t } = useTranslation();
    const error = useRouteError();
    if (error) console.error(error);
    return (
        <main className="page page-narrow" role="alert">
            <h1>{t('Something went wrong')}</h1>
            <p>{t('This page could not be loaded. Check your connection and try again.')}</p>
            <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
                {t('Reload')}
            </button>
        </main>
    );
};
