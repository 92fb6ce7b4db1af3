import { Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';

import { homePath } from '@/components/layout/navigation';
import { ForcedEnrolment, MfaCodeStep } from '@/components/mfa/MfaParts';
import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { Checkbox, TextField } from '@/components/ui/Field';
import { Spinner } from '@/components/ui/Spinner';
import { useClearToasts, useToast } from '@/components/ui/Toasts';
import { paths } from '@/config/paths';
import { enrolmentEnable, enrolmentSetup, isChallenge, loginWithCode, type MfaEnrolledLogin } from '@/lib/api/mfa';
import type { FormErrors } from '@/lib/forms/fields';
import { useSession } from '@/lib/session/SessionProvider';
import { renewalSettled, type Role, type SessionUser } from '@/lib/session/storage';
import { login, unlockLogin } from '../api';
import { destinationAfterLogin, LOGIN_PAGES, NO_TOKEN } from '../loginPages';
import { rememberedEmail } from '../rememberedEmail';
import { serverText } from '../serverText';
import { hasErrors, validateLogin, type LoginField } from '../validation';
import { AuthCard } from './AuthCard';

import '../auth.css';

/**
 * The sign-in form shared by /doctor-login, /hospital-login and /admin-login.
 * Field errors and the failure message are kept as English keys and
 * translated on render, so they follow a language change.
 */
const LoginForm = ({ role }: { role: Role }) => {
    const { t, i18n } = useTranslation('auth');
    const page = LOGIN_PAGES[role];
    const { signIn } = useSession();
    const notify = useToast();
    const clearToasts = useClearToasts();
    const navigate = useNavigate();

    const [email, setEmail] = useState(() => rememberedEmail.get(role) ?? '');
    const [password, setPassword] = useState('');
    const [remember, setRemember] = useState(() => rememberedEmail.get(role) !== null);
    const [errors, setErrors] = useState<FormErrors<LoginField>>({});
    const [submitted, setSubmitted] = useState(false);
    const [failure, setFailure] = useState<string | null>(null);
    // Past the sign-in limits, a right password from a new place gets a link by email instead.
    const [stepUp, setStepUp] = useState<string | null>(null);
    const [params, setParams] = useSearchParams();
    const [busy, setBusy] = useState(false);
    const [focusRequest, setFocusRequest] = useState(0);
    const form = useRef<HTMLFormElement>(null);
    const [challenge, setChallenge] = useState<{ kind: 'code' | 'enroll'; challenge: string } | null>(null);
    const enrolled = useRef<MfaEnrolledLogin | null>(null);

    // The two-factor step's texts ('mfa') load while the password is typed, without
    // holding the form back, so the step shows at once after a right password.
    useEffect(() => {
        void i18n.loadNamespaces('mfa');
    }, [i18n]);

    // The mailed sign-in link (`?unlock=`): used once, then taken off the address bar.
    const unlock = params.get('unlock');
    useEffect(() => {
        if (!unlock) return;
        setParams({}, { replace: true });
        setBusy(true);
        void (async () => {
            const result = await unlockLogin(unlock);
            if (!result.ok) {
                fail(result.message || page.fallbackError);
                return;
            }
            if (isChallenge(result.data)) {
                setBusy(false);
                setChallenge({ kind: result.data.mfaRequired, challenge: result.data.challenge });
                return;
            }
            finish(result.data);
        })();
        // Once per link: the effect's other inputs do not change what the link does.
    }, [unlock]);

    // After a refused submit, focus goes to the first field in error.
    useEffect(() => {
        if (focusRequest) form.current?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
    }, [focusRequest]);

    // Once a submit has shown errors, they follow what the user types.
    const change = (field: LoginField, value: string) => {
        if (field === 'email') setEmail(value);
        else setPassword(value);
        if (submitted) setErrors(validateLogin(role, { email, password, [field]: value }));
    };

    // One message per failure, where the user looks: the form's alert (no toast as well).
    const fail = (message: string) => {
        setFailure(message);
        setBusy(false);
    };

    const submit = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        if (busy) return;
        setSubmitted(true);
        setFailure(null);
        setStepUp(null);
        clearToasts();
        const found = validateLogin(role, { email, password });
        setErrors(found);
        if (hasErrors(found)) {
            // Each field says what is wrong under it; focus goes to the first.
            setFocusRequest(count => count + 1);
            return;
        }

        setBusy(true);
        await renewalSettled();
        const result = await login({ email: email.trim(), password, role });
        if (!result.ok) {
            // A 422 names the fields it refused; show those under the fields too.
            const { email: emailProblem, password: passwordProblem } = result.fields;
            if (emailProblem || passwordProblem) {
                setErrors({ email: emailProblem, password: passwordProblem });
                setFocusRequest(count => count + 1);
            }
            fail(result.message || page.fallbackError);
            return;
        }
        if ('stepUp' in result.data) {
            setBusy(false);
            setStepUp(result.data.message);
            return;
        }
        if (isChallenge(result.data)) {
            // Two-factor sign-in: a code, or an enrolment the account must do first.
            setBusy(false);
            setChallenge({ kind: result.data.mfaRequired, challenge: result.data.challenge });
            return;
        }
        finish(result.data);
    };

    const finish = ({ token, user }: { token: string; user: SessionUser }) => {
        if (!token) {
            fail(NO_TOKEN);
            return;
        }
        const next = destinationAfterLogin(user);
        if ('error' in next) {
            fail(next.error);
            return;
        }
        rememberedEmail.set(role, remember ? email.trim() : null);
        signIn(token, user);
        notify(t(page.welcome), 'success');
        // Replace: Back from the dashboard should not return to a filled-in login form.
        navigate(next.path, { replace: true });
    };

    const back = () => {
        setChallenge(null);
        setPassword('');
    };

    // The two-factor steps wait for their texts in a Suspense boundary of their own:
    // left to the page's (AppLayout), the wait would remount the whole sign-in page
    // under preact/compat, losing the challenge and showing the password form again.
    if (challenge?.kind === 'code') {
        return (
            <Suspense fallback={<Spinner />}>
                <MfaCodeStep
                    onCancel={back}
                    onSubmit={async code => {
                        const answer = await loginWithCode(challenge.challenge, code);
                        if (answer.ok) finish(answer.data);
                        return answer;
                    }}
                />
            </Suspense>
        );
    }
    if (challenge?.kind === 'enroll') {
        return (
            <Suspense fallback={<Spinner />}>
                <ForcedEnrolment
                    challenge={challenge.challenge}
                    setup={enrolmentSetup}
                    enable={async (value, code) => {
                        const answer = await enrolmentEnable(value, code);
                        if (answer.ok) enrolled.current = answer.data;
                        return answer;
                    }}
                    onSignedIn={() => {
                        if (enrolled.current) finish(enrolled.current);
                    }}
                    onCancel={back}
                />
            </Suspense>
        );
    }

    return (
        <>
            {failure && (
                <Alert kind="error" onClose={() => setFailure(null)}>
                    <p data-testid="login-error">{serverText(t, failure)}</p>
                </Alert>
            )}
            {stepUp && (
                <Alert kind="info" onClose={() => setStepUp(null)}>
                    <p data-testid="login-step-up">{serverText(t, stepUp)}</p>
                </Alert>
            )}
            <form ref={form} className="auth-form" noValidate onSubmit={event => void submit(event)}>
                <TextField
                    label={t('Email')}
                    type="email"
                    name="email"
                    autoComplete="email"
                    placeholder={t('Enter your email')}
                    value={email}
                    onChange={event => change('email', event.target.value)}
                    error={errors.email && t(errors.email)}
                    required
                />
                <TextField
                    label={t('Password')}
                    type="password"
                    name="password"
                    autoComplete="current-password"
                    placeholder={t('Enter your password')}
                    value={password}
                    onChange={event => change('password', event.target.value)}
                    error={errors.password && t(errors.password)}
                    required
                />
                <div className="form-row">
                    <Checkbox
                        label={t('Remember me')}
                        name="remember"
                        checked={remember}
                        onChange={event => setRemember(event.target.checked)}
                    />
                    <Link to={paths.forgotPassword}>{t('Forgot password?')}</Link>
                </div>
                <Button type="submit" className="btn-block" busy={busy}>
                    {t('Login')}
                </Button>
            </form>
            <div className="auth-links">
                <p>
                    {t(page.registerPrompt)} <Link to={page.registerPath}>{t(page.registerLabel)}</Link>
                </p>
                <Link to={paths.roleSelection}>{t('Back to role selection')}</Link>
            </div>
        </>
    );
};

/**
 * A whole sign-in page. Someone already signed in with this page's role goes
 * straight to their dashboard; another role may sign in over their session.
 */
export const LoginPage = ({ role }: { role: Role }) => {
    const { t } = useTranslation('auth');
    const { user, loading } = useSession();
    // Decided once, when the session restore ends (the form shows before it): after the
    // form signs in, it navigates by itself.
    const arrival = (): SessionUser | null => (user?.role === role ? user : null);
    const [signedInAlready, setSignedInAlready] = useState<SessionUser | null | undefined>(() =>
        loading ? undefined : arrival(),
    );
    useEffect(() => {
        // Once, when loading ends (a sign-in by the form waits for the restore to settle first).
        if (signedInAlready === undefined && !loading) setSignedInAlready(arrival());
    }, [loading]);
    if (signedInAlready) return <Navigate to={homePath(signedInAlready)} replace />;
    return (
        <AuthCard title={t(LOGIN_PAGES[role].title)} subtitle={t(LOGIN_PAGES[role].subtitle)}>
            <LoginForm role={role} />
        </AuthCard>
    );
};
