import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { readPacs, savePacs, testPacs, type PacsSettings, type PacsTest } from '../pacsApi';

const RESULTS: Record<PacsTest['result'], string> = {
    ok: 'Connection works.',
    unauthorized: 'The PACS refused the username or password.',
    timeout: 'The PACS did not answer in time.',
    unreachable: 'The PACS could not be reached.',
    not_dicomweb: 'This address does not answer as DICOMweb.',
    not_configured: 'No PACS is configured.',
};

/**
 * The hospital's PACS over DICOMweb: its address, username and password
 * (write-only: the page only learns whether one is kept), "Test connection"
 * on what is typed, and an empty address to go back to the platform's PACS.
 */
export const PacsSettingsCard = () => {
    const { t } = useTranslation('hospitals');
    const [settings, setSettings] = useState<PacsSettings | null>(null);
    const [baseUrl, setBaseUrl] = useState('');
    const [username, setUsername] = useState('');
    const [password, setPassword] = useState('');
    const [fields, setFields] = useState<Record<string, string>>({});
    const [notice, setNotice] = useState<{ ok: boolean; message: string; detail?: string } | null>(null);
    const [busy, setBusy] = useState<'save' | 'test' | null>(null);

    const show = (data: PacsSettings) => {
        setSettings(data);
        setBaseUrl(data.baseUrl ?? '');
        setUsername(data.username ?? '');
        setPassword('');
    };

    useEffect(() => {
        void readPacs().then(result => {
            if (result.ok) show(result.data);
        });
    }, []);

    const body = () => ({
        baseUrl: baseUrl.trim() || null,
        username: username.trim() || null,
        // Left empty, a saved password is kept.
        password: password || null,
    });

    const save = async (event: FormEvent) => {
        event.preventDefault();
        setBusy('save');
        const result = await savePacs(body());
        setBusy(null);
        if (!result.ok) {
            setFields(result.fields ?? {});
            setNotice({ ok: false, message: result.message });
            return;
        }
        setFields({});
        show(result.data);
        setNotice({
            ok: true,
            message: result.data.source === 'hospital' ? 'Saved.' : "Using the platform's PACS.",
        });
    };

    const test = async () => {
        setBusy('test');
        const result = await testPacs(body());
        setBusy(null);
        if (!result.ok) {
            setFields(result.fields ?? {});
            setNotice({ ok: false, message: result.message });
            return;
        }
        setFields({});
        setNotice({ ok: result.data.result === 'ok', message: RESULTS[result.data.result], detail: result.data.message });
    };

    if (settings === null) return null;
    return (
        <section className="card" aria-labelledby="pacs-heading" data-testid="pacs-settings">
            <h2 id="pacs-heading">{t('PACS (imaging)')}</h2>
            <p className="profile-note">
                {t("Cara stores your doctors' studies in this PACS over DICOMweb. Leave the address empty to use the platform's PACS.")}
            </p>
            {notice && (
                <Alert kind={notice.ok ? 'success' : 'error'} onClose={() => setNotice(null)}>
                    <p data-testid="pacs-notice">{t(notice.message)}</p>
                    {notice.detail && <p className="pacs-detail">{t(notice.detail)}</p>}
                </Alert>
            )}
            <form onSubmit={event => void save(event)} noValidate>
                <TextField
                    label={t('DICOMweb address')}
                    name="pacsBaseUrl"
                    type="url"
                    inputMode="url"
                    autoComplete="off"
                    value={baseUrl}
                    hint={t('e.g. https://pacs.example.org/dicom-web')}
                    error={fields.baseUrl ? t(fields.baseUrl) : undefined}
                    onChange={event => setBaseUrl(event.target.value)}
                />
                <TextField
                    label={t('PACS username')}
                    name="pacsUsername"
                    autoComplete="off"
                    value={username}
                    onChange={event => setUsername(event.target.value)}
                />
                <TextField
                    label={t('PACS password')}
                    name="pacsPassword"
                    type="password"
                    autoComplete="new-password"
                    value={password}
                    hint={settings.passwordSet ? t('A password is saved; leave this empty to keep it.') : undefined}
                    onChange={event => setPassword(event.target.value)}
                />
                <div className="pacs-actions">
                    <Button type="submit" busy={busy === 'save'} disabled={busy !== null}>
                        {t('Save PACS settings')}
                    </Button>
                    <Button variant="secondary" busy={busy === 'test'} disabled={busy !== null} onClick={() => void test()}>
                        {t('Test connection')}
                    </Button>
                </div>
            </form>
        </section>
    );
};
