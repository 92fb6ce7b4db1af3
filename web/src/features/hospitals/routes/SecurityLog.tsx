import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { useRowWindow } from '@/lib/rowWindow';
import { fetchAuditPage, type AuditEntry, type AuditFilters, type AuditGroup } from '../auditApi';
import { DoctorMfaPolicy } from '../components/DoctorMfaPolicy';
import { PacsSettingsCard } from '../components/PacsSettingsCard';
import '../security.css';

const GROUPS: readonly AuditGroup[] = ['doctor', 'consultation', 'record_settings', 'profile', 'recording'];

/**
 * /security (hospitals): the hospital's own audit log, newest first: who added, edited or
 * deactivated doctors, viewed or exported notes, changed the record settings. Filtered by kind
 * and days; "Show more" asks for the next page (keyset, so it never repeats or skips an entry).
 */
const SecurityLog = () => {
    const { t, i18n } = useTranslation('account');
    const [filters, setFilters] = useState<AuditFilters>({});
    const [entries, setEntries] = useState<AuditEntry[]>([]);
    const [cursor, setCursor] = useState<string | null>(null);
    const [busy, setBusy] = useState(false);
    const [error, setError] = useState<string | null>(null);
    // After many "Show more", only the rows near the viewport are in the page.
    const bodyRef = useRef<HTMLTableSectionElement>(null);
    const rows = useRowWindow(entries.length, bodyRef, 'tr[data-action]');

    const load = useCallback(async (wanted: AuditFilters, after: string | null) => {
        setBusy(true);
        const result = await fetchAuditPage(wanted, after);
        setBusy(false);
        if (!result.ok) {
            setError(result.message);
            return;
        }
        setError(null);
        setEntries(previous => (after ? [...previous, ...result.data.items] : result.data.items));
        setCursor(result.data.nextCursor ?? null);
    }, []);

    useEffect(() => {
        void load(filters, null);
    }, [filters, load]);

    const groups: Record<AuditGroup, string> = {
        doctor: t('Doctors'),
        consultation: t('Notes'),
        record_settings: t('Record settings'),
        profile: t('Profiles'),
        recording: t('Recordings'),
    };
    const actions: Record<string, string> = {
        'doctor.created': t('Added a doctor'),
        'doctor.updated': t("Edited a doctor's details"),
        'doctor.activated': t('Reactivated a doctor'),
        'doctor.deactivated': t('Deactivated a doctor'),
        'doctor.removed': t('Removed a doctor'),
        'doctor.email_change_requested': t("Asked to change a doctor's email"),
        'consultation.hospital_view': t('Viewed a signed note'),
        'consultation.export': t('Exported a note'),
        'record_settings.update': t('Changed the record settings'),
        'pacs_settings.update': t('Changed the PACS settings'),
        'imaging.study_added': t('Brought in an imaging study'),
        'profile.updated': t('Updated a profile'),
        'settings.doctor_mfa_required': t('Required two-factor sign-in for doctors'),
        'settings.doctor_mfa_optional': t('Made two-factor sign-in optional for doctors'),
        'doctor.signed_up': t('Registered a doctor'),
        'doctor.verified': t('Verified a doctor'),
        'doctor.add_refused_address_in_use': t('Could not add a doctor: the email is in use'),
        'consultation.consent': t("Recorded a patient's consent"),
        'consultation.update': t("Edited a consultation's details"),
        'consultation.draft': t('Cara wrote a draft'),
        'consultation.note.save': t('Saved a note'),
        'consultation.note.sign': t('Signed a note'),
        'consultation.note.addendum': t('Added an addendum'),
        'consultation.recorded': t('Filed a recorded consultation'),
        'consultation.retention': t('Deleted an unsigned record after its retention period'),
        'recording.consent': t("Recorded a patient's consent to a recording"),
        'recording.expired': t('Deleted an abandoned recording'),
        'certificate.uploaded': t('Uploaded a certificate'),
    };
    /** What an entry is about, in words: a doctor by name, a record by its kind (never an id). */
    const target = (entry: AuditEntry): string => {
        switch (entry.targetType) {
            case null:
            case undefined:
                return '';
            case 'doctor':
            case 'account':
                return entry.targetName ?? t('A removed account');
            case 'consultation':
                return t('A consultation');
            case 'recording':
                return t('A recording');
            case 'record_settings':
                return t('Record settings');
            case 'pacs_settings':
                return t('PACS settings');
            case 'imaging_study':
                return t('An imaging study');
            case 'certificate_file':
                return t('A certificate');
            default:
                return t('Another record');
        }
    };
    const when = (at: string) =>
        new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));
    const setFilter = (name: keyof AuditFilters, value: string) =>
        setFilters(previous => ({ ...previous, [name]: value || undefined }));

    return (
        <main className="page security-page">
            <DoctorMfaPolicy />
            <PacsSettingsCard />
            <section className="card" aria-labelledby="security-log-heading">
                <h1 id="security-log-heading">{t('Audit log')}</h1>
                <p className="profile-note">
                    {t('Who added, edited or deactivated doctors, viewed or exported notes and changed settings.')}
                </p>
                <div className="security-filters" data-testid="audit-filters">
                    <SelectField
                        label={t('Kind')}
                        name="group"
                        value={filters.group ?? ''}
                        placeholder={t('All')}
                        options={GROUPS.map(group => ({ value: group, label: groups[group] }))}
                        onChange={event => setFilter('group', event.target.value)}
                    />
                    <TextField
                        label={t('From')}
                        type="date"
                        name="from"
                        value={filters.from ?? ''}
                        onChange={event => setFilter('from', event.target.value)}
                    />
                    <TextField
                        label={t('To')}
                        type="date"
                        name="to"
                        value={filters.to ?? ''}
                        onChange={event => setFilter('to', event.target.value)}
                    />
                </div>
                {error && <Alert kind="error">{t(error)}</Alert>}
                {entries.length === 0 && !busy && !error ? (
                    <p data-testid="audit-empty">{t('No entries.')}</p>
                ) : (
                    <table className="table audit-table" data-testid="audit-table">
                        <thead>
                            <tr>
                                <th scope="col">{t('When')}</th>
                                <th scope="col">{t('Who')}</th>
                                <th scope="col">{t('What')}</th>
                                <th scope="col">{t('On')}</th>
                            </tr>
                        </thead>
                        <tbody ref={bodyRef}>
                            {rows.before > 0 && (
                                <tr className="row-spacer" aria-hidden="true">
                                    <td colSpan={4} style={{ height: rows.before }} />
                                </tr>
                            )}
                            {entries.slice(rows.start, rows.end).map(entry => (
                                <tr key={entry.id} data-action={entry.action}>
                                    <td>{when(entry.at)}</td>
                                    <td>{entry.actorName ?? t('A removed account')}</td>
                                    <td>{actions[entry.action] ?? t('Another action')}</td>
                                    <td>{target(entry)}</td>
                                </tr>
                            ))}
                            {rows.after > 0 && (
                                <tr className="row-spacer" aria-hidden="true">
                                    <td colSpan={4} style={{ height: rows.after }} />
                                </tr>
                            )}
                        </tbody>
                    </table>
                )}
                {cursor && (
                    <Button variant="secondary" busy={busy} onClick={() => void load(filters, cursor)}>
                        {t('Show more')}
                    </Button>
                )}
            </section>
        </main>
    );
};

export default SecurityLog;
