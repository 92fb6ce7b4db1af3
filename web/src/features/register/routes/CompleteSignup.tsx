import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { useToast } from '@/components/ui/Toasts';
import { paths, specialtyPath } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import { completeSignup } from '../api';
import { RegisterPage } from '../components/RegisterLayout';

/**
 * /complete-signup?token=...: the link mailed after a doctor or hospital signed themselves up.
 * Nothing is made until the button is pressed, so a mail scanner opening the link creates no
 * account. A doctor is signed in and goes to their console; a hospital signs in from its page.
 */
const CompleteSignup = () => {
    const { t } = useTranslation('register');
    const [params] = useSearchParams();
    const token = params.get('token') ?? '';
    const { signIn } = useSession();
    const notify = useToast();
    const navigate = useNavigate();
    const [busy, setBusy] = useState(false);
    const [failure, setFailure] = useState<string | null>(null);

    const finish = async () => {
        setBusy(true);
        setFailure(null);
        const result = await completeSignup(token);
        setBusy(false);
        if (!result.ok) {
            setFailure(result.message || 'Registration failed');
            return;
        }
        const { token: session, user } = result.data;
        if (user.role === 'hospital') {
            notify(t('Registration successful! Please log in.'), 'success');
            navigate(paths.hospitalLogin);
            return;
        }
        notify(t('Registration successful!'), 'success');
        signIn(session, user);
        navigate(specialtyPath(user.specialty ?? ''));
    };

    return (
        <RegisterPage wide={false} title={t('Finish creating your account')} subtitle={t('Your email is confirmed by this link.')}>
            {failure && (
                <Alert kind="error">
                    <p data-testid="complete-signup-error">{t(failure)}</p>
                </Alert>
            )}
            {!token && (
                <Alert kind="error">
                    <p>{t('This link is invalid or has expired. Please sign up again.')}</p>
                </Alert>
            )}
            <Button className="btn-block" busy={busy} disabled={!token} onClick={() => void finish()}>
                {t('Create my account')}
            </Button>
            <p className="auth-links">
                <span>
                    <Link to={paths.roleSelection}>{t('Sign up again')}</Link>
                </span>
                <span>
                    {t('Already have an account?')} <Link to={paths.login}>{t('Log in')}</Link>
                </span>
            </p>
        </RegisterPage>
    );
};

export default CompleteSignup;
