import { useTranslation } from 'react-i18next';

const PrivacyPolicy = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('PrivacyPolicy')}</h1>
        </main>
    );
};

export default PrivacyPolicy;
