import { useTranslation } from 'react-i18next';

const AdminRegister = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('AdminRegister')}</h1>
        </main>
    );
};

export default AdminRegister;
