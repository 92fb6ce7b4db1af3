import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { Modal } from '@/components/ui/Modal';
import { useToast } from '@/components/ui/Toasts';
import { SPECIALTIES } from '@/config/paths';
import { useCheckedForm } from '@/lib/forms/useCheckedForm';
import { addDoctor, mentionsSubscription, type Doctor } from '../api';
import {
    dashboardCreateBody,
    EMPTY_DASHBOARD_FORM,
    validateDashboardDoctor,
    type DashboardDoctorField,
} from '../validation';

import '../hospitals.css';

/**
 * The dashboard's 'Add New Doctor' dialog (spec §2 "Hospital Dashboard", §5
 * "Hospital dashboard add form"). A refusal is a toast 'Error adding doctor:
 * {message}' plus an alert in the dialog; one that names the subscription
 * hands over to `onSubscriptionRefused` (the page opens /subscription).
 */
export const DashboardAddDoctorModal = ({
    hospitalId,
    onClose,
    onAdded,
    onBusyChange,
    onSubscriptionRefused,
}: {
    hospitalId: string;
    onClose: () => void;
    onAdded: (doctor: Doctor) => void;
    onBusyChange: (busy: boolean) => void;
    onSubscriptionRefused: () => void;
}) => {
    const { t } = useTranslation('hospitals');
    const notify = useToast();
    const formId = useId();
    const { form, set, error, check, showServerFields, formRef } = useCheckedForm(
        EMPTY_DASHBOARD_FORM,
        validateDashboardDoctor,
        'hospitals',
    );
    const [busy, setBusy] = useState(false);
    const [failure, setFailure] = useState<string | null>(null);

    const busyNow = (value: boolean) => {
        setBusy(value);
        onBusyChange(value);
    };

    const submit = async (event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        if (busy || !check()) return;
        busyNow(true);
        setFailure(null);
        const result = await addDoctor(dashboardCreateBody(form, hospitalId));
        busyNow(false);
        if (result.ok) {
            onAdded(result.data);
            return;
        }
        const message = t(result.message);
        notify(t('Error adding doctor: {{message}}', { message }), 'error');
        setFailure(message);
        showServerFields(result.fields);
        if (mentionsSubscription(result.message)) onSubscriptionRefused();
    };

    const text = (field: DashboardDoctorField) => ({
        value: form[field],
        error: error(field),
        onChange: (event: { target: { value: string } }) => set(field, event.target.value),
        'aria-required': true,
    });
    const specialties = SPECIALTIES.map(specialty => ({ value: specialty, label: t(specialty) }));

    return (
        <Modal
            title={t('Add New Doctor')}
            onClose={onClose}
            closable={!busy}
            footer={
                <>
                    <Button variant="secondary" onClick={onClose} disabled={busy}>
                        {t('Cancel')}
                    </Button>
                    <Button type="submit" form={formId} busy={busy}>
                        {t('Add Doctor')}
                    </Button>
                </>
            }
        >
            {failure && (
                <Alert kind="error" title={t('Error:')} onClose={() => setFailure(null)}>
                    <p>{failure}</p>
                </Alert>
            )}
            <form id={formId} ref={formRef} className="hosp-doctor-form" noValidate onSubmit={event => void submit(event)}>
                <div className="hosp-form-grid">
                    <TextField label={t('Name')} autoComplete="off" {...text('name')} />
                    <TextField label={t('Email')} type="email" autoComplete="off" {...text('email')} />
                    <TextField label={t('Phone Number')} type="tel" autoComplete="off" {...text('phoneNumber')} />
                    <SelectField
                        label={t('Specialty')}
                        placeholder={t('Select Specialty')}
                        options={specialties}
                        {...text('specialty')}
                    />
                    <TextField label={t('License Number')} autoComplete="off" {...text('licenseNumber')} />
                    <TextField
                        label={t('Experience (years)')}
                        type="number"
                        min={0}
                        max={80}
                        step={1}
                        inputMode="numeric"
                        {...text('experience')}
                    />
                    <TextField label={t('Password')} type="password" autoComplete="new-password" {...text('password')} />
                    <TextField label={t('Country')} autoComplete="off" {...text('country')} />
                    <TextField label={t('State')} autoComplete="off" {...text('state')} />
                </div>
            </form>
        </Modal>
    );
};
