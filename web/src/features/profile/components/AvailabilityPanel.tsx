import { useTranslation } from 'react-i18next';

import { Checkbox, TextField } from '@/components/ui/Field';
import type { AvailabilityForm } from '../model';
import { patchAt, type PanelProps } from './shared';

/**
 * Availability: each weekday with an Available checkbox and its hours. The
 * times can be edited only in edit mode and only when the day is available.
 */
export const AvailabilityPanel = ({ form, editing, error, change }: PanelProps) => {
    const { t } = useTranslation('doctor');
    const edit = (index: number, field: keyof AvailabilityForm, patch: Partial<AvailabilityForm>) =>
        change(`availability.${index}.${field}`, current => ({
            ...current,
            availability: patchAt(current.availability, index, patch),
        }));

    return (
        <section aria-labelledby="profile-availability-heading">
            <h2 id="profile-availability-heading" className="profile-panel-title">
                {t('Availability')}
            </h2>
            <p className="profile-panel-intro">{t('Set the days and hours you are available.')}</p>
            <div className="profile-days">
                {form.availability.map((entry, index) => {
                    const key = (field: string) => `availability.${index}.${field}`;
                    const off = !entry.isAvailable;
                    return (
                        <fieldset
                            key={entry.day}
                            className={`profile-day${off ? ' is-off' : ''}`}
                            data-testid="availability-day"
                            data-day={entry.day}
                        >
                            <legend className="profile-day-name">{t(entry.day)}</legend>
                            {editing ? (
                                <Checkbox
                                    label={t('Available')}
                                    data-field={key('isAvailable')}
                                    checked={entry.isAvailable}
                                    onChange={event => edit(index, 'isAvailable', { isAvailable: event.target.checked })}
                                />
                            ) : (
                                // Read-only: the state as words (a disabled checkbox is too faint to read).
                                <span
                                    className={`profile-day-chip${off ? '' : ' is-on'}`}
                                    data-testid="day-status"
                                >
                                    {off ? t('Not available') : t('Available')}
                                </span>
                            )}
                            <TextField
                                label={t('Start Time')}
                                type="time"
                                data-field={key('startTime')}
                                value={entry.startTime}
                                readOnly={!editing}
                                disabled={editing && off}
                                error={error(key('startTime'))}
                                onChange={event => edit(index, 'startTime', { startTime: event.target.value })}
                            />
                            <TextField
                                label={t('End Time')}
                                type="time"
                                data-field={key('endTime')}
                                value={entry.endTime}
                                readOnly={!editing}
                                disabled={editing && off}
                                error={error(key('endTime'))}
                                onChange={event => edit(index, 'endTime', { endTime: event.target.value })}
                            />
                        </fieldset>
                    );
                })}
            </div>
        </section>
    );
};
