import { useTranslation } from 'react-i18next';

/** An accessible spinner; `label` is read by screen readers (default 'Loading...'). */
export const Spinner = ({ label }: { label?: string }) => {
    const { t } = useTranslation();
    return (
        <span className="spinner" role="status">
            <span className="visually-hidden">{label ?? t('Loading...')}</span>
        </span>
    );
};

/** Full-screen spinner shown while the signed-in user loads (spec §2). */
export const FullScreenSpinner = () => {
    const { t } = useTranslation();
    return (
        <div className="fullscreen-spinner" data-testid="fullscreen-spinner">
            <Spinner />
            <p>{t('Loading...')}</p>
        </div>
    );
};
