import { useTranslation } from 'react-i18next';

const ForgotPassword = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('ForgotPassword')}</h1>
        </main>
    );
};

export default ForgotPassword;
