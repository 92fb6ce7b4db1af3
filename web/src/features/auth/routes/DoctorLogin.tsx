import { useTranslation } from 'react-i18next';

const DoctorLogin = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('DoctorLogin')}</h1>
        </main>
    );
};

export default DoctorLogin;
