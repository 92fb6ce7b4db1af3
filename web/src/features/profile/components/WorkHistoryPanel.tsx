import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { TextAreaField, TextField } from '@/components/ui/Field';
import { MAX_ENTRIES, today, type WorkForm } from '../model';
import { patchAt, type PanelProps } from './shared';

/** Work History: hospital/organization, position, start and end dates, description. */
export const WorkHistoryPanel = ({
    form,
    editing,
    error,
    change,
    onAdd,
    onRemove,
}: PanelProps & { onAdd: () => void; onRemove: (index: number) => void }) => {
    const { t } = useTranslation('doctor');
    const list = form.workHistory;
    const edit = (index: number, field: keyof WorkForm, value: string) =>
        change(`workHistory.${index}.${field}`, current => ({
            ...current,
            workHistory: patchAt(current.workHistory, index, { [field]: value }),
        }));

    return (
        <section aria-labelledby="profile-work-heading">
            <div className="profile-panel-head">
                <h2 id="profile-work-heading" className="profile-panel-title">
                    {t('Work History')}
                </h2>
                {editing && (
                    <Button variant="secondary" disabled={list.length >= MAX_ENTRIES} onClick={onAdd}>
                        <span aria-hidden="true">+</span>
                        {t('Add Work Experience')}
                    </Button>
                )}
            </div>
            {list.length === 0 && <p className="profile-empty">{t('No work history added yet.')}</p>}
            {list.map((entry, index) => {
                const key = (field: keyof WorkForm) => `workHistory.${index}.${field}`;
                const number = index + 1;
                const field = (name: 'hospital' | 'position' | 'startDate' | 'endDate') => ({
                    'data-field': key(name),
                    readOnly: !editing,
                    value: entry[name],
                    error: error(key(name)),
                    onChange: (event: { target: { value: string } }) => edit(index, name, event.target.value),
                });
                return (
                    <fieldset key={entry.key} className="profile-entry" data-testid="work-entry">
                        <legend>{t('Work Experience {{number}}', { number })}</legend>
                        <div className="form-grid">
                            <TextField label={t('Hospital/Organization')} maxLength={200} {...field('hospital')} />
                            <TextField label={t('Position')} maxLength={200} {...field('position')} />
                            <TextField label={t('Start Date')} type="date" max={today()} {...field('startDate')} />
                            <TextField
                                label={t('End Date')}
                                type="date"
                                min={entry.startDate || undefined}
                                max={today()}
                                hint={editing ? t('Leave empty if you still work here.') : undefined}
                                {...field('endDate')}
                            />
                        </div>
                        <TextAreaField
                            label={t('Description')}
                            data-field={key('description')}
                            rows={3}
                            maxLength={2000}
                            readOnly={!editing}
                            value={entry.description}
                            error={error(key('description'))}
                            onChange={event => edit(index, 'description', event.target.value)}
                        />
                        {editing && (
                            <div className="profile-entry-actions">
                                <Button
                                    variant="ghost"
                                    className="profile-remove"
                                    aria-label={t('Remove work experience {{number}}', { number })}
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
