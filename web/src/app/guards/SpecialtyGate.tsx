import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { homePath } from '@/components/layout/navigation';
import { Alert } from '@/components/ui/Alert';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';

/**
 * A specialty console, or the radiotherapy chat, is offered to the doctors of
 * that specialty only: another doctor who opens it by URL is told so on load,
 * with the way to their own console (the generic assistant stays open to
 * all). The server's check (cara.live.permission) still refuses the chat to
 * them; this notice only spares them a dead end.
 */
export const SpecialtyGate = ({
    specialty,
    chat = false,
    children,
}: {
    specialty: string;
    chat?: boolean;
    children: ReactNode;
}) => {
    const { t } = useTranslation();
    const { user } = useSession();
    if (!user || user.role !== 'doctor' || user.specialty === specialty) return <>{children}</>;
    return (
        <main className="page page-narrow" data-testid="specialty-notice">
            <Alert
                kind="info"
                title={chat ? t('The radiotherapy chat is for Radiotherapists') : t('This console is for another specialty')}
            >
                <p>
                    {chat
                        ? t('The radiotherapy chat is available to Radiotherapists only.')
                        : t('Each specialty console is offered to the doctors of that specialty only.')}
                </p>
                <p className="notice-actions">
                    <Link className="btn btn-primary" to={homePath(user)}>
                        {user.specialty ? t('Open my console') : t('Go to my dashboard')}
                    </Link>
                    <Link className="btn btn-secondary" to={paths.assistant}>
                        {t('Open the general assistant')}
                    </Link>
                </p>
            </Alert>
        </main>
    );
};
