import { useTranslation } from 'react-i18next';

/**
 * A page whose screen is built later shows its route's title, so routing,
 * guards and navigation can be used and tested end to end today.
 */
export const RouteTitle = ({ title, dark = false }: { title: string; dark?: boolean }) => {
    const { t } = useTranslation('pages');
    return (
        <main className={`page${dark ? ' page-dark' : ''}`}>
            <h1>{t(title)}</h1>
        </main>
    );
};
