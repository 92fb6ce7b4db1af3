import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { MAX_ENTRIES, today, type CertificationForm } from '../model';
import { CertificateFileField } from './CertificateFileField';
import type { PanelProps } from './shared';

/** Certifications: name, issuer, date obtained and a certificate file; added and removed in edit mode. */
export const CertificationsPanel = ({
    form,
    editing,
    error,
    change,
    onAdd,
    onRemove,
    onFileError,
    onBusy,
}: PanelProps & {
    onAdd: () => void;
    onRemove: (index: number) => void;
    onFileError: (key: string, message: string | null) => void;
    onBusy: (entryKey: string, busy: boolean) => void;
}) => {
    const { t } = useTranslation('doctor');
    const list = form.certifications;
    // Entries are found by their key, not their place: an upload may end after an earlier entry went.
    const edit = (index: number, field: string, patch: Partial<CertificationForm>) => {
        const entryKey = list[index].key;
        change(`certifications.${index}.${field}`, current => ({
            ...current,
            certifications: current.certifications.map(entry =>
                entry.key === entryKey ? { ...entry, ...patch } : entry,
            ),
        }));
    };

    return (
        <section aria-labelledby="profile-certifications-heading">
            <div className="profile-panel-head">
                <h2 id="profile-certifications-heading" className="profile-panel-title">
                    {t('Certifications')}
                </h2>
                {editing && (
                    <Button variant="secondary" disabled={list.length >= MAX_ENTRIES} onClick={onAdd}>
                        <span aria-hidden="true">+</span>
                        {t('Add Certification')}
                    </Button>
                )}
            </div>
            {list.length === 0 && <p className="profile-empty">{t('No certifications added yet.')}</p>}
            {list.map((entry, index) => {
                const key = (field: string) => `certifications.${index}.${field}`;
                const number = index + 1;
                return (
                    <fieldset key={entry.key} className="profile-entry" data-testid="certification">
                        <legend>{t('Certification {{number}}', { number })}</legend>
                        <div className="form-grid">
                            <TextField
                                label={t('Certification Name')}
                                data-field={key('name')}
                                maxLength={200}
                                readOnly={!editing}
                                value={entry.name}
                                error={error(key('name'))}
                                onChange={event => edit(index, 'name', { name: event.target.value })}
                            />
                            <TextField
                                label={t('Issuer')}
                                data-field={key('issuer')}
                                maxLength={200}
                                readOnly={!editing}
                                value={entry.issuer}
                                error={error(key('issuer'))}
                                onChange={event => edit(index, 'issuer', { issuer: event.target.value })}
                            />
                            <TextField
                                label={t('Date Obtained')}
                                type="date"
                                data-field={key('date')}
                                max={today()}
                                readOnly={!editing}
                                value={entry.date}
                                error={error(key('date'))}
                                onChange={event => edit(index, 'date', { date: event.target.value })}
                            />
                        </div>
                        <CertificateFileField
                            entry={entry}
                            fieldKey={key('file')}
                            editing={editing}
                            error={error(key('file'))}
                            onUploaded={file =>
                                edit(index, 'file', { fileId: file.id, fileName: file.fileName, fileSize: file.size })
                            }
                            onRemove={() => edit(index, 'file', { fileId: null, fileName: null, fileSize: null })}
                            onError={message => onFileError(key('file'), message)}
                            onBusy={busy => onBusy(entry.key, busy)}
                        />
                        {editing && (
                            <div className="profile-entry-actions">
                                <Button
                                    variant="ghost"
                                    className="profile-remove"
                                    aria-label={t('Remove certification {{number}}', { number })}
                                    onClick={() => onRemove(index)}
                                >
                                    {t('Remove')}
                                </Button>
                            </div>
                        )}
                    </fieldset>
                );
            })}
        </section>
    );
};
