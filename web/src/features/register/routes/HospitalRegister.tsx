import { useTranslation } from 'react-i18next';

const HospitalRegister = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('HospitalRegister')}</h1>
        </main>
    );
};

export default HospitalRegister;
