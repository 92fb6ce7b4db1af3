import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { paths } from '@/config/paths';
import { emailError } from '@/lib/forms/fields';
import { requestPasswordReset } from '../api';
import { MESSAGES } from '../messages';
import { serverText } from '../serverText';
import { AuthCard } from './AuthCard';

/**
 * /forgot-password without a token: ask for the account's email. The server
 * answers the same whether or not the address has an account (so the page
 * cannot be used to find out who is registered); that answer is what the
 * confirmation shows.
 */
export const RequestResetForm = () => {
    const { t } = useTranslation('auth');
    const [email, setEmail] = useState('');
    const [error, setError] = useState<string | undefined>();
    const [failure, setFailure] = useState<string | null>(null);
    const [sent, setSent] = useState<string | null>(null);
    const [busy, setBusy] = useState(false);
    const heading = useRef<HTMLHeadingElement>(null);
    const form = useRef<HTMLFormElement>(null);
    const [attempt, setAttempt] = useState(0);

    // The screen changes in place: focus its new title so the change is announced.
    useEffect(() => {
        if (sent) heading.current?.focus();
    }, [sent]);
    useEffect(() => {
        if (attempt) form.current?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
    }, [attempt]);

    const submit = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        if (busy) return;
        setFailure(null);
        const problem = emailError(email);
        setError(problem);
        if (problem) {
            setAttempt(count => count + 1);
            return;
        }
        setBusy(true);
        const result = await requestPasswordReset(email.trim());
        setBusy(false);
        if (result.ok) {
            setSent(result.data.message);
            return;
        }
        if (result.fields.email) {
            setError(result.fields.email);
            setAttempt(count => count + 1);
        }
        setFailure(result.message || MESSAGES.resetRequestFailed);
    };

    if (sent) {
        return (
            <AuthCard title={t('Check your email')} headingRef={heading}>
                <Alert kind="success">
                    <p data-testid="reset-requested">{serverText(t, sent)}</p>
                </Alert>
                <p>{t('The link in the email can be used once and expires after a short time.')}</p>
                <div className="auth-links">
                    <Button variant="secondary" onClick={() => setSent(null)}>
                        {t('Send another link')}
                    </Button>
                    <Link to={paths.login}>{t('Back to login')}</Link>
                </div>
            </AuthCard>
        );
    }

    return (
        <AuthCard
            title={t('Forgot Password')}
            subtitle={t('Enter the email address of your account and we will send you a link to reset your password.')}
        >
            {failure && (
                <Alert kind="error" onClose={() => setFailure(null)}>
                    <p>{serverText(t, failure)}</p>
                </Alert>
            )}
            <form ref={form} noValidate onSubmit={event => void submit(event)}>
                <TextField
                    label={t('Email')}
                    type="email"
                    name="email"
                    autoComplete="email"
                    placeholder={t('Enter your email')}
                    value={email}
                    onChange={event => {
                        setEmail(event.target.value);
                        if (error) setError(emailError(event.target.value));
                    }}
                    error={error && t(error)}
                    required
                />
                <Button type="submit" className="btn-block" busy={busy}>
                    {t('Send reset link')}
                </Button>
            </form>
            <div className="auth-links">
                <Link to={paths.login}>{t('Back to login')}</Link>
            </div>
        </AuthCard>
    );
};
