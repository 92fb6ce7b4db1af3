import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import type { MfaSetup } from '@/lib/api/mfa';
import type { Result } from '@/lib/api/result';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { TextField } from '../ui/Field';

import './mfa.css';

/**
 * The pieces of two-factor sign-in both the sign-in page (code step, forced enrolment) and the
 * account security panel use. Texts are in the `mfa` namespace; the server's messages are
 * English keys there too.
 */

const CodeForm = ({
    submitLabel,
    hint,
    onSubmit,
    testId,
    onCancel,
}: {
    submitLabel: string;
    hint: string;
    onSubmit: (code: string) => Promise<Result<unknown>>;
    testId: string;
    onCancel?: () => void;
}) => {
    const { t } = useTranslation('mfa');
    const [code, setCode] = useState('');
    const [error, setError] = useState<string | null>(null);
    const [busy, setBusy] = useState(false);

    const submit = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        if (busy) return;
        if (!code.trim()) {
            setError('Enter the 6-digit code from your authenticator app, or a recovery code');
            return;
        }
        setBusy(true);
        setError(null);
        const result = await onSubmit(code.trim());
        setBusy(false);
        if (!result.ok) setError(result.fields.code ?? result.message);
    };

    return (
        <form className="auth-form mfa-step" noValidate onSubmit={event => void submit(event)} data-testid={testId}>
            <TextField
                label={t('Authentication code')}
                name="code"
                autoComplete="one-time-code"
                inputMode="text"
                autoFocus
                value={code}
                hint={t(hint)}
                onChange={event => setCode(event.target.value)}
                error={error ? t(error) : undefined}
            />
            <Button type="submit" className="btn-block" busy={busy}>
                {t(submitLabel)}
            </Button>
            {onCancel && (
                <Button type="button" variant="secondary" className="btn-block" onClick={onCancel}>
                    {t('Back')}
                </Button>
            )}
        </form>
    );
};

/** The sign-in's second step: a code from the authenticator app or a recovery code. */
export const MfaCodeStep = ({
    onSubmit,
    onCancel,
}: {
    onSubmit: (code: string) => Promise<Result<unknown>>;
    onCancel: () => void;
}) => {
    const { t } = useTranslation('mfa');
    return (
        <div data-testid="mfa-code-step">
            <p>{t('Enter the code from your authenticator app')}</p>
            <CodeForm
                submitLabel="Verify"
                hint="A 6-digit code, or one of your recovery codes"
                onSubmit={onSubmit}
                onCancel={onCancel}
                testId="mfa-code-form"
            />
        </div>
    );
};

/** A secret to enrol: the QR code, the secret as text, and the first code that confirms it. */
export const MfaEnrolment = ({
    setup,
    onConfirm,
    onCancel,
}: {
    setup: MfaSetup;
    onConfirm: (code: string) => Promise<Result<unknown>>;
    onCancel?: () => void;
}) => {
    const { t } = useTranslation('mfa');
    return (
        <div className="mfa-step" data-testid="mfa-enrolment">
            <p>{t('Scan this QR code with an authenticator app, or enter the key below, then type the code it shows.')}</p>
            <img className="mfa-qr" src={setup.qrCode} alt={t('QR code for your authenticator app')} />
            <p>
                {t('Key')}: <code className="mfa-secret" data-testid="mfa-secret">{setup.secret}</code>
            </p>
            <CodeForm
                submitLabel="Turn on two-factor sign-in"
                hint="The 6-digit code your app shows now"
                onSubmit={onConfirm}
                onCancel={onCancel}
                testId="mfa-enable-form"
            />
        </div>
    );
};

/** The ten recovery codes, shown once right after enrolment. */
export const RecoveryCodes = ({ codes, onDone }: { codes: string[]; onDone: () => void }) => {
    const { t } = useTranslation('mfa');
    return (
        <div className="mfa-step" data-testid="mfa-recovery-codes">
            <Alert kind="warning">
                <p>
                    {t(
                        'Save these recovery codes somewhere safe. Each signs you in once if you lose your authenticator app. They are shown only now.',
                    )}
                </p>
            </Alert>
            <ul className="mfa-codes">
                {codes.map(code => (
                    <li key={code}>
                        <code>{code}</code>
                    </li>
                ))}
            </ul>
            <Button type="button" className="btn-block" onClick={onDone}>
                {t('I have saved my recovery codes')}
            </Button>
        </div>
    );
};

/** An enrolment forced at sign-in: set up, then the codes, then `onSignedIn`. */
export const ForcedEnrolment = ({
    challenge,
    setup: start,
    enable,
    onSignedIn,
    onCancel,
}: {
    challenge: string;
    setup: (challenge: string) => Promise<Result<MfaSetup>>;
    enable: (challenge: string, code: string) => Promise<Result<{ recoveryCodes: string[] }>>;
    onSignedIn: () => void;
    onCancel: () => void;
}) => {
    const { t } = useTranslation('mfa');
    const [setup, setSetup] = useState<MfaSetup | null>(null);
    const [codes, setCodes] = useState<string[] | null>(null);
    const [error, setError] = useState<string | null>(null);
    const [busy, setBusy] = useState(false);

    const begin = async () => {
        setBusy(true);
        const result = await start(challenge);
        setBusy(false);
        if (result.ok) setSetup(result.data);
        else setError(result.message);
    };

    if (codes) return <RecoveryCodes codes={codes} onDone={onSignedIn} />;
    return (
        <div className="mfa-step" data-testid="mfa-forced-enrolment">
            <h2>{t('Set up two-factor sign-in')}</h2>
            <p>{t('Your account needs two-factor sign-in. Set it up to continue.')}</p>
            {error && (
                <Alert kind="error" onClose={() => setError(null)}>
                    <p>{t(error)}</p>
                </Alert>
            )}
            {setup ? (
                <MfaEnrolment
                    setup={setup}
                    onCancel={onCancel}
                    onConfirm={async code => {
                        const result = await enable(challenge, code);
                        if (result.ok) setCodes(result.data.recoveryCodes);
                        return result;
                    }}
                />
            ) : (
                <>
                    <Button type="button" className="btn-block" busy={busy} onClick={() => void begin()}>
                        {t('Set up')}
                    </Button>
                    <Button type="button" variant="secondary" className="btn-block" onClick={onCancel}>
                        {t('Back')}
                    </Button>
                </>
            )}
        </div>
    );
};
