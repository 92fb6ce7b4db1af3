import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { Modal } from '@/components/ui/Modal';
import type { Doctor } from '../api';

/** 'Confirm Delete' (spec §2): Cancel, or Delete, after which the page closes it either way. */
export const DeleteDoctorModal = ({
    doctor,
    onCancel,
    onConfirm,
}: {
    doctor: Doctor;
    onCancel: () => void;
    onConfirm: (doctor: Doctor) => Promise<void>;
}) => {
    const { t } = useTranslation('hospitals');
    const [busy, setBusy] = useState(false);
    const confirm = async () => {
        setBusy(true);
        await onConfirm(doctor);
    };
    return (
        <Modal
            title={t('Confirm Delete')}
            onClose={onCancel}
            closable={!busy}
            footer={
                <>
                    <Button variant="secondary" onClick={onCancel} disabled={busy}>
                        {t('Cancel')}
                    </Button>
                    <Button variant="danger" busy={busy} onClick={() => void confirm()}>
                        {t('Delete')}
                    </Button>
                </>
            }
        >
            <p>{t('Are you sure you want to remove this doctor? This action cannot be undone.')}</p>
            <p className="hosp-delete-name">
                <strong>{doctor.name}</strong> · {doctor.email}
            </p>
        </Modal>
    );
};
