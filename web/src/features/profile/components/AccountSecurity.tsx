import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import { changeEmail, changePassword, resendVerification } from '../api';
import { TwoFactorPanel } from './TwoFactorPanel';

type Fields = Record<string, string>;

/**
 * Sign-in email and password, each changed only with the current password. The server signs
 * every other session out and returns a new token for this one; the old address is told (and
 * may undo an email change for 72 hours).
 */
export const AccountSecurity = () => {
    const { t } = useTranslation('account');
    const { user, signIn } = useSession();
    const [email, setEmail] = useState('');
    const [emailPassword, setEmailPassword] = useState('');
    const [current, setCurrent] = useState('');
    const [next, setNext] = useState('');
    const [errors, setErrors] = useState<{ email: Fields; password: Fields }>({ email: {}, password: {} });
    const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null);
    const [busy, setBusy] = useState<'email' | 'password' | null>(null);

    const submitEmail = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        setBusy('email');
        const result = await changeEmail(email, emailPassword);
        setBusy(null);
        if (result.ok) {
            signIn(result.data.token, result.data.user);
            setEmail('');
            setEmailPassword('');
            setErrors({ email: {}, password: {} });
            setNotice({ ok: true, message: result.data.message });
            return;
        }
        setErrors({ email: result.fields, password: {} });
        setNotice({ ok: false, message: result.message });
    };

    const submitPassword = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        setBusy('password');
        const result = await changePassword(current, next);
        setBusy(null);
        if (result.ok) {
            signIn(result.data.token, result.data.user);
            setCurrent('');
            setNext('');
            setErrors({ email: {}, password: {} });
            setNotice({ ok: true, message: result.data.message });
            return;
        }
        setErrors({ email: {}, password: result.fields });
        setNotice({ ok: false, message: result.message });
    };

    const resend = async () => {
        const result = await resendVerification();
        setNotice({ ok: result.ok, message: result.ok ? result.data.message : result.message });
    };

    const fieldError = (form: 'email' | 'password', name: string) => {
        const message = errors[form][name];
        return message ? t(message) : undefined;
    };

    return (
        <section className="card profile-card" aria-labelledby="account-security-heading" data-testid="account-security">
            <h2 id="account-security-heading" className="profile-panel-title">
                {t('Account security')}
            </h2>
            <p className="profile-note">
                {t('Changing your sign-in email or password signs out every other session.')}
            </p>
            {user?.role === 'hospital' && (
                <p>
                    <Link to={paths.security} data-testid="audit-log-link">
                        {t('View the audit log')}
                    </Link>
                </p>
            )}
            {user?.emailVerified === false && (
                <Alert kind="warning">
                    <p data-testid="verify-email-needed">
                        {t('Please verify your email address first: open the link we emailed you.')}
                    </p>
                    <Button variant="secondary" onClick={() => void resend()}>
                        {t('Send the link again')}
                    </Button>
                </Alert>
            )}
            {notice && (
                <Alert kind={notice.ok ? 'success' : 'error'} onClose={() => setNotice(null)}>
                    <p>{t(notice.message)}</p>
                </Alert>
            )}
            <form noValidate onSubmit={event => void submitEmail(event)} data-testid="change-email-form">
                <h3>{t('Change sign-in email')}</h3>
                <TextField
                    label={t('New email')}
                    type="email"
                    name="newEmail"
                    autoComplete="email"
                    value={email}
                    onChange={event => setEmail(event.target.value)}
                    error={fieldError('email', 'email')}
                />
                <TextField
                    label={t('Current password')}
                    type="password"
                    name="emailCurrentPassword"
                    autoComplete="current-password"
                    value={emailPassword}
                    onChange={event => setEmailPassword(event.target.value)}
                    error={fieldError('email', 'currentPassword')}
                />
                <Button type="submit" busy={busy === 'email'}>
                    {t('Change email')}
                </Button>
            </form>
            <form noValidate onSubmit={event => void submitPassword(event)} data-testid="change-password-form">
                <h3>{t('Change password')}</h3>
                <TextField
                    label={t('Current password')}
                    type="password"
                    name="currentPassword"
                    autoComplete="current-password"
                    value={current}
                    onChange={event => setCurrent(event.target.value)}
                    error={fieldError('password', 'currentPassword')}
                />
                <TextField
                    label={t('New password')}
                    type="password"
                    name="newPassword"
                    autoComplete="new-password"
                    value={next}
                    onChange={event => setNext(event.target.value)}
                    error={fieldError('password', 'newPassword')}
                />
                <Button type="submit" busy={busy === 'password'}>
                    {t('Change password')}
                </Button>
            </form>
            <TwoFactorPanel />
        </section>
    );
};
