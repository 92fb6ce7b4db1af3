import { useId, useState, useSyncExternalStore, type ChangeEvent, type FormEvent } from 'react';
import { LOCALES, type Locale } from '../i18n/locales';
import { LogoMark } from '../layout/Logo';
import { MfaStep } from './MfaStep';
import { isMfaNeeded, LOGIN_FAILED, type LoginParams } from './signIn';
import type { Translate } from './texts';
import { validateLogin, type LoginErrors, type LoginForm as LoginFields } from './validation';
import './login.css';

interface Props {
    translate: Translate;
    locale: Locale;
    onLocaleChange: (locale: Locale) => void;
    /** Signs in; rejects with an i18n key or the server's own message. */
    signIn: (params: LoginParams) => Promise<void>;
}

const storedTheme = (): string | null => {
    try {
        return localStorage.getItem('theme');
    } catch {
        return null;
    }
};
/** A theme chosen in another tab of either app applies here too. */
const onStorage = (onChange: () => void) => {
    window.addEventListener('storage', onChange);
    return () => window.removeEventListener('storage', onChange);
};

/**
 * /admin/login: the admin login form (spec §2 `/admin-login`, §5, §8). Plain
 * React and CSS, no react-admin or MUI: on a slow link the form shows as soon
 * as React and this module have arrived, and the console's code follows.
 */
export const LoginForm = ({ translate, locale, onLocaleChange, signIn }: Props) => {
    const id = useId();
    const theme = useSyncExternalStore(onStorage, storedTheme);
    const [form, setForm] = useState<LoginFields>({ email: '', password: '' });
    const [errors, setErrors] = useState<LoginErrors>({});
    const [failure, setFailure] = useState<string | null>(null);
    const [submitting, setSubmitting] = useState(false);
    const [mfa, setMfa] = useState<{ kind: 'code' | 'enroll'; challenge: string } | null>(null);

    const change = (field: keyof LoginFields) => (event: ChangeEvent<HTMLInputElement>) => {
        setForm(current => ({ ...current, [field]: event.target.value }));
        setErrors(current => ({ ...current, [field]: undefined }));
    };

    const submit = async (event: FormEvent) => {
        event.preventDefault();
        const found = validateLogin(form);
        setErrors(found);
        if (Object.keys(found).length > 0) return;
        setSubmitting(true);
        setFailure(null);
        try {
            await signIn({ email: form.email.trim(), password: form.password });
        } catch (error) {
            if (isMfaNeeded(error)) {
                // The password was right: a code (or an enrolment) comes next.
                setMfa({ kind: error.kind, challenge: error.challenge });
                setSubmitting(false);
                return;
            }
            const message = (error as Error)?.message || LOGIN_FAILED;
            setFailure(translate(message, { _: message }));
            setSubmitting(false);
        }
    };

    const field = (name: keyof LoginFields, type: string, autoComplete: string) => {
        const error = errors[name];
        return (
            <div className={`cara-login-field${error ? ' cara-login-field--error' : ''}`}>
                <label htmlFor={`${id}-${name}`}>{translate(`cara.login.${name}`)}</label>
                <input
                    id={`${id}-${name}`}
                    name={name}
                    type={type}
                    autoComplete={autoComplete}
                    value={form[name]}
                    onChange={change(name)}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={`${id}-${name}-help`}
                    disabled={submitting}
                    autoFocus={name === 'email'}
                />
                <p id={`${id}-${name}-help`} className="cara-login-help">
                    {error ? translate(error) : ' '}
                </p>
            </div>
        );
    };

    return (
        <div className={`cara-login${theme === 'dark' ? ' cara-login--dark' : ''}`}>
            <div className="cara-login-language" data-testid="language-switcher">
                <select
                    aria-label={translate('ra.action.select_language', { _: 'Language' })}
                    value={locale}
                    onChange={event => onLocaleChange(event.target.value as Locale)}
                >
                    {LOCALES.map(entry => (
                        <option key={entry.locale} value={entry.locale} lang={entry.locale}>
                            {entry.name}
                        </option>
                    ))}
                </select>
            </div>
            {mfa ? (
                <MfaStep
                    translate={translate}
                    kind={mfa.kind}
                    challenge={mfa.challenge}
                    signIn={signIn}
                    onBack={() => {
                        setMfa(null);
                        setForm(current => ({ ...current, password: '' }));
                    }}
                />
            ) : (
            <form className="cara-login-card" onSubmit={submit} noValidate>
                <div className="cara-login-heading">
                    <LogoMark size={44} />
                    <h1>{translate('cara.login.title')}</h1>
                    <p>{translate('cara.login.subtitle')}</p>
                </div>
                {failure && (
                    <div className="cara-login-alert" role="alert">
                        {failure}
                    </div>
                )}
                {field('email', 'email', 'username')}
                {field('password', 'password', 'current-password')}
                <button type="submit" className="cara-login-submit" disabled={submitting}>
                    {submitting && <span className="cara-login-spinner" aria-hidden="true" />}
                    {translate(submitting ? 'cara.login.submitting' : 'cara.login.submit')}
                </button>
                <a className="cara-login-back" href="/">
                    {translate('cara.login.back')}
                </a>
            </form>
            )}
        </div>
    );
};
