import { useTranslation } from 'react-i18next';

const DoctorRegister = () => {
    const { t } = useTranslation();
    return (
        <main className="page">
            <h1>{t('DoctorRegister')}</h1>
        </main>
    );
};

export default DoctorRegister;
