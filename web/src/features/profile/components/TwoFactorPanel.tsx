import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { MfaEnrolment, RecoveryCodes } from '@/components/mfa/MfaParts';
import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { mfaDisable, mfaEnable, mfaSetup, mfaStatus, type MfaSetup, type MfaStatus } from '@/lib/api/mfa';

/**
 * Two-factor sign-in on the account security section: its state, enrolment (QR code, first
 * code, then the recovery codes once) and turning it off with the password and a code (not
 * offered while the account must have it: an admin, or a doctor of a hospital that requires it).
 */
export const TwoFactorPanel = () => {
    const { t } = useTranslation('mfa');
    const [status, setStatus] = useState<MfaStatus | null>(null);
    const [setup, setSetup] = useState<MfaSetup | null>(null);
    const [codes, setCodes] = useState<string[] | null>(null);
    const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null);
    const [password, setPassword] = useState('');
    const [code, setCode] = useState('');
    const [fields, setFields] = useState<Record<string, string>>({});
    const [busy, setBusy] = useState(false);

    const load = async () => {
        const result = await mfaStatus();
        if (result.ok) setStatus(result.data);
    };
    useEffect(() => {
        void load();
    }, []);

    const begin = async () => {
        setBusy(true);
        const result = await mfaSetup();
        setBusy(false);
        if (result.ok) setSetup(result.data);
        else setNotice({ ok: false, message: result.message });
    };

    const disable = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        setBusy(true);
        const result = await mfaDisable(password, code);
        setBusy(false);
        if (result.ok) {
            setPassword('');
            setCode('');
            setFields({});
            setNotice({ ok: true, message: result.data.message });
            void load();
            return;
        }
        setFields(result.fields);
        setNotice({ ok: false, message: result.message });
    };

    if (status === null) return null;
    return (
        <div className="mfa-panel" data-testid="two-factor">
            <h3>{t('Two-factor sign-in')}</h3>
            <p data-testid="two-factor-state">
                {status.enabled ? t('Two-factor sign-in is on.') : t('Two-factor sign-in is off.')}{' '}
                {status.required && t('Your account requires it.')}
            </p>
            {notice && (
                <Alert kind={notice.ok ? 'success' : 'error'} onClose={() => setNotice(null)}>
                    <p>{t(notice.message)}</p>
                </Alert>
            )}
            {codes ? (
                <RecoveryCodes
                    codes={codes}
                    onDone={() => {
                        setCodes(null);
                        void load();
                    }}
                />
            ) : setup ? (
                <MfaEnrolment
                    setup={setup}
                    onCancel={() => setSetup(null)}
                    onConfirm={async value => {
                        const result = await mfaEnable(value);
                        if (result.ok) {
                            setSetup(null);
                            setCodes(result.data.recoveryCodes);
                        }
                        return result;
                    }}
                />
            ) : !status.enabled ? (
                <>
                    <p className="profile-note">
                        {t('A code from an authenticator app on your phone is asked for at each sign-in, after your password.')}
                    </p>
                    <Button type="button" busy={busy} onClick={() => void begin()} data-testid="two-factor-setup">
                        {t('Set up two-factor sign-in')}
                    </Button>
                </>
            ) : (
                <>
                    <p>{t('Recovery codes left: {{left}}', { left: status.recoveryCodesLeft })}</p>
                    {!status.required && (
                        <form noValidate onSubmit={event => void disable(event)} data-testid="two-factor-disable-form">
                            <TextField
                                label={t('Current password')}
                                type="password"
                                name="mfaCurrentPassword"
                                autoComplete="current-password"
                                value={password}
                                onChange={event => setPassword(event.target.value)}
                                error={fields.currentPassword && t(fields.currentPassword)}
                            />
                            <TextField
                                label={t('Authentication code')}
                                name="mfaCode"
                                autoComplete="one-time-code"
                                value={code}
                                onChange={event => setCode(event.target.value)}
                                error={fields.code && t(fields.code)}
                            />
                            <Button type="submit" variant="danger" busy={busy}>
                                {t('Turn off two-factor sign-in')}
                            </Button>
                        </form>
                    )}
                </>
            )}
        </div>
    );
};
