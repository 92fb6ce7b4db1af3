import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** An inline message box; dismissible when `onClose` is given. */
export const Alert = ({
    kind = 'error',
    title,
    children,
    onClose,
}: {
    kind?: 'error' | 'warning' | 'info' | 'success';
    title?: string;
    children?: ReactNode;
    onClose?: () => void;
}) => {
    const { t } = useTranslation();
    return (
        <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
            <div className="alert-body">
                {title && <strong className="alert-title">{title}</strong>}
                {children}
            </div>
            {onClose && (
                <button type="button" className="alert-close" aria-label={t('Close')} onClick={onClose}>
                    ×
                </button>
            )}
        </div>
    );
};
