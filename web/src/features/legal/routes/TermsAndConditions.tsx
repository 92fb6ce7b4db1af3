import { useTranslation } from 'react-i18next';

const TermsAndConditions = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('TermsAndConditions')}</h1>
        </main>
    );
};

export default TermsAndConditions;
