import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { paths } from '@/config/paths';

import '../hospitals.css';

/**
 * What a user who is not a hospital sees on the hospital screens (spec §2):
 * the dashboard's 'Access Restricted' and the Manage Doctors page's
 * 'Access Denied' (with Go to Login), each with its own sentence.
 */
export const AccessNotice = ({
    title,
    message,
    withLogin = false,
}: {
    title: string;
    message: string;
    withLogin?: boolean;
}) => {
    const { t } = useTranslation('hospitals');
    return (
        <main className="page page-narrow hosp-access">
            <Alert kind="warning">
                <h1 className="hosp-access-title">{title}</h1>
                <p>{message}</p>
                {withLogin && (
                    <p className="hosp-access-action">
                        <Link className="btn btn-primary" to={paths.login}>
                            {t('Go to Login')}
                        </Link>
                    </p>
                )}
            </Alert>
        </main>
    );
};
