import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { paths } from '@/config/paths';

const NotFound = () => {
    const { t } = useTranslation();
    return (
        <main className="page page-narrow">
            <h1>{t('Page not found')}</h1>
            <p>{t('The page you are looking for does not exist.')}</p>
            <Link to={paths.roleSelection}>{t('Back to home')}</Link>
        </main>
    );
};

export default NotFound;
