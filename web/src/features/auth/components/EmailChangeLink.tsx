import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { paths } from '@/config/paths';
import { confirmEmailChange, undoEmailChange, verifyEmail } from '../api';
import { AuthCard } from './AuthCard';

type Outcome = { ok: boolean; message: string } | null;

/**
 * /undo-email-change?token=... (mailed to the old address after a sign-in email change),
 * /confirm-email-change?token=... (mailed to the new address a hospital gave its doctor) and
 * /verify-email?token=... (mailed to a new hospital). Nothing happens until the button is
 * pressed, so a mail scanner opening the link changes nothing.
 */
export const EmailChangeLink = ({ kind }: { kind: 'undo' | 'confirm' | 'verify' }) => {
    const { t } = useTranslation('account');
    const [params] = useSearchParams();
    const token = params.get('token') ?? '';
    const [busy, setBusy] = useState(false);
    const [outcome, setOutcome] = useState<Outcome>(null);

    const submit = async () => {
        setBusy(true);
        const call = { undo: undoEmailChange, confirm: confirmEmailChange, verify: verifyEmail }[kind];
        const result = await call(token);
        setBusy(false);
        setOutcome(
            result.ok
                ? { ok: true, message: result.data.message }
                : { ok: false, message: result.message || 'This link is invalid or has expired.' },
        );
    };

    const title = {
        undo: t('Undo the email change'),
        confirm: t('Confirm your new email'),
        verify: t("Verify your hospital's email"),
    }[kind];
    const explanation = {
        undo: t('Your sign-in email was changed. If it was not you, undo the change: every session is signed out.'),
        confirm: t('Your hospital asked to make this address your sign-in email.'),
        verify: t('Verify this address to add doctors and choose a plan.'),
    }[kind];
    return (
        <AuthCard title={title} subtitle={explanation}>
            {outcome && (
                <Alert kind={outcome.ok ? 'success' : 'error'}>
                    <p data-testid="email-link-outcome">{t(outcome.message)}</p>
                </Alert>
            )}
            {!outcome?.ok && (
                <Button className="btn-block" busy={busy} disabled={!token} onClick={() => void submit()}>
                    {kind === 'undo' ? t('Undo the change') : t('Confirm')}
                </Button>
            )}
            <div className="auth-links">
                <Link to={outcome?.ok && kind === 'undo' ? paths.forgotPassword : paths.login}>
                    {outcome?.ok && kind === 'undo' ? t('Reset your password') : t('Go to login')}
                </Link>
            </div>
        </AuthCard>
    );
};
