import { useTranslation } from 'react-i18next';

const HospitalLogin = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('HospitalLogin')}</h1>
        </main>
    );
};

export default HospitalLogin;
