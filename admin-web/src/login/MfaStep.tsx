import { useEffect, useId, useState, type FormEvent } from 'react';
import { LogoMark } from '../layout/Logo';
import type { SessionUser } from '../lib/session';
import { enrolmentEnable, enrolmentSetup, LOGIN_FAILED, type LoginParams, type MfaSetup } from './signIn';
import type { Translate } from './texts';

interface Props {
    translate: Translate;
    kind: 'code' | 'enroll';
    challenge: string;
    signIn: (params: LoginParams) => Promise<void>;
    onBack: () => void;
}

/**
 * The sign-in's second step for an admin with two-factor sign-in (a code from the authenticator
 * app, or a recovery code), or the enrolment an admin without it must do before anything else:
 * QR code and key, a first code, then the recovery codes shown once, then the console.
 */
export const MfaStep = ({ translate, kind, challenge, signIn, onBack }: Props) => {
    const id = useId();
    const [code, setCode] = useState('');
    const [failure, setFailure] = useState<string | null>(null);
    const [busy, setBusy] = useState(false);
    const [setup, setSetup] = useState<MfaSetup | null>(null);
    const [enrolled, setEnrolled] = useState<{ token: string; user: SessionUser; recoveryCodes: string[] } | null>(
        null,
    );

    const problem = (error: unknown) => {
        const message = (error as Error)?.message || LOGIN_FAILED;
        setFailure(translate(message, { _: message }));
    };

    useEffect(() => {
        if (kind !== 'enroll') return;
        enrolmentSetup(challenge).then(setSetup, problem);
    }, [kind, challenge]);

    const submit = async (event: FormEvent) => {
        event.preventDefault();
        if (!code.trim()) {
            setFailure(translate('cara.mfa.code_required'));
            return;
        }
        setBusy(true);
        setFailure(null);
        try {
            if (kind === 'code') await signIn({ challenge, code: code.trim() });
            else setEnrolled(await enrolmentEnable(challenge, code.trim()));
        } catch (error) {
            problem(error);
        }
        setBusy(false);
    };

    const finish = async () => {
        if (!enrolled) return;
        setBusy(true);
        try {
            await signIn({ enrolled: { token: enrolled.token, user: enrolled.user } });
        } catch (error) {
            problem(error);
            setBusy(false);
        }
    };

    const heading = (
        <div className="cara-login-heading">
            <LogoMark size={44} />
            <h1>{translate(kind === 'code' ? 'cara.mfa.title' : 'cara.mfa.enroll_title')}</h1>
        </div>
    );
    const alert = failure && (
        <div className="cara-login-alert" role="alert">
            {failure}
        </div>
    );

    if (enrolled) {
        return (
            <div className="cara-login-card" data-testid="mfa-recovery-codes">
                {heading}
                <p className="cara-mfa-text">{translate('cara.mfa.codes_warning')}</p>
                <ul className="cara-mfa-codes">
                    {enrolled.recoveryCodes.map(value => (
                        <li key={value}>
                            <code>{value}</code>
                        </li>
                    ))}
                </ul>
                {alert}
                <button type="button" className="cara-login-submit" disabled={busy} onClick={() => void finish()}>
                    {translate('cara.mfa.codes_done')}
                </button>
            </div>
        );
    }

    return (
        <form className="cara-login-card" onSubmit={submit} noValidate data-testid={`mfa-${kind}`}>
            {heading}
            {kind === 'code' ? (
                <p className="cara-mfa-text">{translate('cara.mfa.code_text')}</p>
            ) : (
                <>
                    <p className="cara-mfa-text">{translate('cara.mfa.enroll_text')}</p>
                    {setup && (
                        <>
                            <img className="cara-mfa-qr" src={setup.qrCode} alt={translate('cara.mfa.qr_alt')} />
                            <p className="cara-mfa-text">
                                {translate('cara.mfa.key')}: <code className="cara-mfa-key" data-testid="mfa-secret">{setup.secret}</code>
                            </p>
                        </>
                    )}
                </>
            )}
            {alert}
            <div className="cara-login-field">
                <label htmlFor={`${id}-code`}>{translate('cara.mfa.code')}</label>
                <input
                    id={`${id}-code`}
                    name="code"
                    autoComplete="one-time-code"
                    value={code}
                    onChange={event => setCode(event.target.value)}
                    disabled={busy}
                    autoFocus
                />
                <p className="cara-login-help">{translate(kind === 'code' ? 'cara.mfa.code_hint' : 'cara.mfa.enroll_hint')}</p>
            </div>
            <button type="submit" className="cara-login-submit" disabled={busy || (kind === 'enroll' && !setup)}>
                {translate(kind === 'code' ? 'cara.mfa.verify' : 'cara.mfa.enable')}
            </button>
            <button type="button" className="cara-mfa-back" onClick={onBack}>
                {translate('cara.mfa.back')}
            </button>
        </form>
    );
};
