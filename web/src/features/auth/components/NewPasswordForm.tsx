import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { useToast } from '@/components/ui/Toasts';
import { paths } from '@/config/paths';
import type { FormErrors } from '@/lib/forms/fields';
import { resetPassword } from '../api';
import { MESSAGES } from '../messages';
import { serverText } from '../serverText';
import { hasErrors, NEW_PASSWORD_MIN, validateNewPassword, type NewPasswordField } from '../validation';
import { AuthCard } from './AuthCard';

type Stage =
    | { name: 'form' }
    /** The server refused the link itself (used, expired or unknown): only a new one helps. */
    | { name: 'invalid-link'; message: string }
    | { name: 'done'; message: string };

/**
 * /forgot-password?token=... (the emailed link): choose a new password. The
 * server signs out every existing session of the account when it succeeds.
 */
export const NewPasswordForm = ({ token }: { token: string }) => {
    const { t } = useTranslation('auth');
    const notify = useToast();
    const [password, setPassword] = useState('');
    const [confirm, setConfirm] = useState('');
    const [errors, setErrors] = useState<FormErrors<NewPasswordField>>({});
    const [submitted, setSubmitted] = useState(false);
    const [failure, setFailure] = useState<string | null>(null);
    const [stage, setStage] = useState<Stage>({ name: 'form' });
    const [busy, setBusy] = useState(false);
    const [attempt, setAttempt] = useState(0);
    const heading = useRef<HTMLHeadingElement>(null);
    const form = useRef<HTMLFormElement>(null);

    // The screen changes in place: focus its new title so the change is announced.
    useEffect(() => {
        if (stage.name !== 'form') heading.current?.focus();
    }, [stage.name]);
    useEffect(() => {
        if (attempt) form.current?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
    }, [attempt]);

    const change = (field: NewPasswordField, value: string) => {
        if (field === 'password') setPassword(value);
        else setConfirm(value);
        if (submitted) setErrors(validateNewPassword({ password, confirm, [field]: value }));
    };

    const submit = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        if (busy) return;
        setSubmitted(true);
        setFailure(null);
        const found = validateNewPassword({ password, confirm });
        setErrors(found);
        if (hasErrors(found)) {
            setAttempt(count => count + 1);
            return;
        }
        setBusy(true);
        const result = await resetPassword(token, password);
        setBusy(false);
        if (result.ok) {
            notify(serverText(t, result.data.message), 'success');
            setStage({ name: 'done', message: result.data.message });
            return;
        }
        if (result.status === 400 && result.message) {
            setStage({ name: 'invalid-link', message: result.message });
            return;
        }
        if (result.fields.password) {
            setErrors({ password: result.fields.password });
            setAttempt(count => count + 1);
        }
        setFailure(result.message || MESSAGES.resetFailed);
    };

    if (stage.name === 'done') {
        return (
            <AuthCard title={t('Password reset')} headingRef={heading}>
                <Alert kind="success">
                    <p data-testid="reset-done">{serverText(t, stage.message)}</p>
                </Alert>
                <div className="auth-links">
                    <Link className="btn btn-primary btn-block" to={paths.login} replace>
                        {t('Go to login')}
                    </Link>
                </div>
            </AuthCard>
        );
    }

    if (stage.name === 'invalid-link') {
        return (
            <AuthCard title={t('Reset link not valid')} headingRef={heading}>
                <Alert kind="error">
                    <p>{serverText(t, stage.message)}</p>
                </Alert>
                <div className="auth-links">
                    <Link className="btn btn-primary btn-block" to={paths.forgotPassword} replace>
                        {t('Request a new link')}
                    </Link>
                    <Link to={paths.login}>{t('Back to login')}</Link>
                </div>
            </AuthCard>
        );
    }

    return (
        <AuthCard title={t('Reset Password')} subtitle={t('Choose a new password for your account.')}>
            {failure && (
                <Alert kind="error" onClose={() => setFailure(null)}>
                    <p>{serverText(t, failure)}</p>
                </Alert>
            )}
            <form ref={form} noValidate onSubmit={event => void submit(event)}>
                <TextField
                    label={t('New password')}
                    type="password"
                    name="password"
                    autoComplete="new-password"
                    value={password}
                    onChange={event => change('password', event.target.value)}
                    hint={t('At least {{minimum}} characters', { minimum: NEW_PASSWORD_MIN })}
                    error={errors.password && t(errors.password)}
                    required
                />
                <TextField
                    label={t('Confirm new password')}
                    type="password"
                    name="confirm"
                    autoComplete="new-password"
                    value={confirm}
                    onChange={event => change('confirm', event.target.value)}
                    error={errors.confirm && t(errors.confirm)}
                    required
                />
                <Button type="submit" className="btn-block" busy={busy}>
                    {t('Reset password')}
                </Button>
            </form>
            <div className="auth-links">
                <Link to={paths.login}>{t('Back to login')}</Link>
            </div>
        </AuthCard>
    );
};
