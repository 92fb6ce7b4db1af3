import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { useToast } from '@/components/ui/Toasts';
import { useSession } from '@/lib/session/SessionProvider';
import type { SessionUser } from '@/lib/session/storage';
import { saveProfile } from '../api';
import {
    bodyFromForm,
    emptyCertification,
    emptyWork,
    firstErrorKey,
    formFromUser,
    tabOf,
    TABS,
    validateProfile,
    withoutEntry,
    type Errors,
    type ProfileForm,
    type TabId,
} from '../model';
import { AvailabilityPanel } from './AvailabilityPanel';
import { CertificationsPanel } from './CertificationsPanel';
import { PersonalPanel } from './PersonalPanel';
import { ProfileHeader } from './ProfileHeader';
import { Tabs } from './Tabs';
import { WorkHistoryPanel } from './WorkHistoryPanel';

/**
 * The doctor's profile (spec §2 "Doctor Profile page", §4 "Profile"):
 * view mode shows the stored profile read-only; 'Edit Profile' opens a draft
 * copy; 'Save Changes' checks it (the server's rules, mirrored in model.ts)
 * and sends the whole profile; success stores the returned user and goes back
 * to view mode; 'Cancel' drops the draft. Any error, from here or from the
 * server, sits under its field, and the page switches to the tab that holds
 * the first one and focuses that field.
 */

/** Error keys that have a field on the page; others are listed in the alert. */
const PLACED = [
    /^(name|email|phoneNumber|specialty|licenseNumber|experience)$/,
    /^certifications\.\d+\.(name|issuer|date|file)$/,
    /^workHistory\.\d+\.(hospital|position|startDate|endDate|description)$/,
    /^availability\.\d+\.(startTime|endTime)$/,
];
const placed = (key: string) => PLACED.some(pattern => pattern.test(key));

interface Failure {
    message: string;
    details: string[];
}

export const DoctorProfile = ({ user }: { user: SessionUser }) => {
    const { t } = useTranslation('doctor');
    const notify = useToast();
    const { updateUser } = useSession();
    const stored = useMemo(() => formFromUser(user), [user]);

    const [draft, setDraft] = useState<ProfileForm | null>(null);
    const [tab, setTab] = useState<TabId>('personal');
    const [attempted, setAttempted] = useState(false);
    /** Messages from the server and from file checks, each kept until its field is edited. */
    const [reported, setReported] = useState<Errors>({});
    const [failure, setFailure] = useState<Failure | null>(null);
    const [saving, setSaving] = useState(false);
    const [uploads, setUploads] = useState<Record<string, true>>({});
    const [focusRequest, setFocusRequest] = useState<{ key: string } | null>(null);
    const root = useRef<HTMLElement>(null);

    const editing = draft !== null;
    const form = draft ?? stored;
    const uploading = Object.keys(uploads).length > 0;

    const errors: Errors = useMemo(
        () => (draft ? { ...reported, ...(attempted ? validateProfile(draft) : {}) } : {}),
        [draft, reported, attempted],
    );
    const error = useCallback((key: string) => (errors[key] ? t(errors[key]) : undefined), [errors, t]);

    // Focus the field of the first error once its tab is on screen.
    useEffect(() => {
        if (!focusRequest) return;
        const scope = root.current;
        const target =
            scope?.querySelector<HTMLElement>(
                `[role="tabpanel"]:not([hidden]) [data-field="${CSS.escape(focusRequest.key)}"]:not(:disabled)`,
            ) ??
            scope?.querySelector<HTMLElement>('[role="tabpanel"]:not([hidden]) [aria-invalid="true"]') ??
            scope?.querySelector<HTMLElement>('.alert');
        target?.focus();
    }, [focusRequest]);

    const showFirst = (found: Errors) => {
        const key = firstErrorKey(found);
        if (!key) return;
        if (placed(key)) setTab(tabOf(key));
        setFocusRequest({ key });
    };

    const change = useCallback((key: string, edit: (form: ProfileForm) => ProfileForm) => {
        setDraft(current => (current ? edit(current) : current));
        setReported(current => {
            if (!(key in current)) return current;
            const { [key]: _edited, ...rest } = current;
            return rest;
        });
    }, []);

    const startEditing = () => {
        setDraft(stored);
        setAttempted(false);
        setReported({});
        setFailure(null);
    };

    const cancel = () => {
        setDraft(null);
        setAttempted(false);
        setReported({});
        setFailure(null);
        setUploads({});
    };

    const save = async () => {
        if (!draft || saving || uploading) return;
        setAttempted(true);
        const found = validateProfile(draft);
        if (Object.keys(found).length > 0) {
            setFailure({ message: 'Please fix the errors in the form', details: [] });
            showFirst({ ...reported, ...found });
            return;
        }
        setSaving(true);
        setFailure(null);
        const result = await saveProfile(bodyFromForm(draft));
        setSaving(false);
        if (result.ok) {
            updateUser(result.data);
            setDraft(null);
            setAttempted(false);
            setReported({});
            notify(t('Profile updated successfully'), 'success');
            return;
        }
        setReported(result.fields);
        setFailure({
            message: result.message,
            details: Object.entries(result.fields)
                .filter(([key, text]) => !placed(key) && text !== result.message)
                .map(([, text]) => text),
        });
        notify(t('Failed to update profile'), 'error');
        showFirst(result.fields);
    };

    const addCertification = () => {
        const index = form.certifications.length;
        change('', current => ({ ...current, certifications: [...current.certifications, emptyCertification()] }));
        setFocusRequest({ key: `certifications.${index}.name` });
    };
    const removeCertification = (index: number) => {
        change('', current => ({
            ...current,
            certifications: current.certifications.filter((_, i) => i !== index),
        }));
        setReported(current => withoutEntry(current, 'certifications', index));
    };
    const addWork = () => {
        const index = form.workHistory.length;
        change('', current => ({ ...current, workHistory: [...current.workHistory, emptyWork()] }));
        setFocusRequest({ key: `workHistory.${index}.hospital` });
    };
    const removeWork = (index: number) => {
        change('', current => ({ ...current, workHistory: current.workHistory.filter((_, i) => i !== index) }));
        setReported(current => withoutEntry(current, 'workHistory', index));
    };
    const fileError = useCallback((key: string, message: string | null) => {
        setReported(current => {
            if (message) return { ...current, [key]: message };
            if (!(key in current)) return current;
            const { [key]: _cleared, ...rest } = current;
            return rest;
        });
    }, []);
    const uploadBusy = useCallback((entryKey: string, busy: boolean) => {
        setUploads(current => {
            if (busy) return { ...current, [entryKey]: true };
            if (!(entryKey in current)) return current;
            const { [entryKey]: _done, ...rest } = current;
            return rest;
        });
    }, []);

    const counts = Object.fromEntries(TABS.map(id => [id, 0])) as Record<TabId, number>;
    for (const key of Object.keys(errors)) if (placed(key)) counts[tabOf(key)] += 1;
    const tabLabels: Record<TabId, string> = {
        personal: t('Personal Information'),
        certifications: t('Certifications'),
        work: t('Work History'),
        availability: t('Availability'),
    };
    const panel = { form, editing, error, change };

    return (
        <main className="page profile-page" ref={root} data-mode={editing ? 'edit' : 'view'}>
            <ProfileHeader name={user.name} subtitle={user.specialty ? t(user.specialty) : t('Doctor')}>
                {editing && (
                    <Button variant="secondary" disabled={saving} onClick={cancel}>
                        {t('Cancel')}
                    </Button>
                )}
                <Button
                    variant="primary"
                    busy={saving}
                    disabled={uploading}
                    aria-describedby={editing && uploading ? 'profile-upload-wait' : undefined}
                    onClick={() => (editing ? void save() : startEditing())}
                    data-testid="profile-toggle"
                >
                    {editing ? t('Save Changes') : t('Edit Profile')}
                </Button>
            </ProfileHeader>

            <p className="profile-mode" role="status">
                {editing
                    ? uploading
                        ? t('Wait for the upload to finish before saving.')
                        : t('You are editing your profile.')
                    : ''}
            </p>
            {editing && uploading && (
                <span id="profile-upload-wait" className="visually-hidden">
                    {t('Wait for the upload to finish before saving.')}
                </span>
            )}

            {failure && editing && (
                <Alert kind="error" onClose={() => setFailure(null)}>
                    <p>{t(failure.message)}</p>
                    {failure.details.length > 0 && (
                        <ul className="profile-failure-details">
                            {failure.details.map(detail => (
                                <li key={detail}>{t(detail)}</li>
                            ))}
                        </ul>
                    )}
                </Alert>
            )}

            <form
                className="card profile-card"
                noValidate
                aria-label={t('Doctor profile')}
                onSubmit={event => {
                    event.preventDefault();
                    if (editing) void save();
                }}
            >
                <Tabs
                    label={t('Profile sections')}
                    selected={tab}
                    onSelect={setTab}
                    tabs={TABS.map(id => ({
                        id,
                        label: tabLabels[id],
                        errorCount: counts[id],
                        errorLabel: t('Errors: {{number}}', { number: counts[id] }),
                    }))}
                    panels={{
                        personal: <PersonalPanel {...panel} />,
                        certifications: (
                            <CertificationsPanel
                                {...panel}
                                onAdd={addCertification}
                                onRemove={removeCertification}
                                onFileError={fileError}
                                onBusy={uploadBusy}
                            />
                        ),
                        work: <WorkHistoryPanel {...panel} onAdd={addWork} onRemove={removeWork} />,
                        availability: <AvailabilityPanel {...panel} />,
                    }}
                />
            </form>
        </main>
    );
};
