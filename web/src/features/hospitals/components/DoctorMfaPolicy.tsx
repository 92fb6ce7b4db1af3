import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Checkbox } from '@/components/ui/Field';
import { doctorMfaPolicy, setDoctorMfaPolicy } from '@/lib/api/mfa';

/** The hospital's rule: its doctors set up two-factor sign-in at their next sign-in. */
export const DoctorMfaPolicy = () => {
    const { t } = useTranslation('mfa');
    const [required, setRequired] = useState<boolean | null>(null);
    const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null);
    const [busy, setBusy] = useState(false);

    useEffect(() => {
        void doctorMfaPolicy().then(result => {
            if (result.ok) setRequired(result.data.requireForDoctors);
        });
    }, []);

    const change = async (value: boolean) => {
        // Shown at once; put back if the server refuses.
        const before = required;
        setRequired(value);
        setBusy(true);
        const result = await setDoctorMfaPolicy(value);
        setBusy(false);
        if (result.ok) {
            setRequired(result.data.requireForDoctors);
            setNotice({
                ok: true,
                message: result.data.requireForDoctors
                    ? 'Your doctors will set up two-factor sign-in at their next sign-in.'
                    : 'Two-factor sign-in is optional for your doctors.',
            });
        } else {
            setRequired(before);
            setNotice({ ok: false, message: result.message });
        }
    };

    if (required === null) return null;
    return (
        <section className="card" aria-labelledby="doctor-mfa-heading" data-testid="doctor-mfa-policy">
            <h2 id="doctor-mfa-heading">{t('Two-factor sign-in')}</h2>
            {notice && (
                <Alert kind={notice.ok ? 'success' : 'error'} onClose={() => setNotice(null)}>
                    <p>{t(notice.message)}</p>
                </Alert>
            )}
            <Checkbox
                label={t('Require two-factor sign-in for our doctors')}
                name="requireDoctorMfa"
                checked={required}
                disabled={busy}
                onChange={event => void change(event.target.checked)}
            />
        </section>
    );
};
