import { useTranslation } from 'react-i18next';

const AdminLogin = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('AdminLogin')}</h1>
        </main>
    );
};

export default AdminLogin;
