import { useTranslation } from 'react-i18next';

const RoleSelectionPage = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('RoleSelectionPage')}</h1>
        </main>
    );
};

export default RoleSelectionPage;
