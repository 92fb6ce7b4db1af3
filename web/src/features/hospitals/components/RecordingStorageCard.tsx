import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { api } from '@/lib/api/client';
import type { components } from '@/lib/api/schema';

type Storage = components['schemas']['RecordingStorageOut'];

/** From this share of the quota on, the card says what happens when it is full. */
const ALMOST_FULL = 0.8;

/** Megabytes below a gigabyte, gigabytes above, in the reader's language. */
export const formatBytes = (bytes: number, language: string): string => {
    const gigabytes = bytes / 1024 ** 3;
    if (gigabytes >= 1)
        return new Intl.NumberFormat(language, { style: 'unit', unit: 'gigabyte', maximumFractionDigits: 1 }).format(
            gigabytes,
        );
    return new Intl.NumberFormat(language, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 0 }).format(
        Math.ceil(bytes / 1024 ** 2),
    );
};

/**
 * The hospital's recorded audio waiting to be processed (GET /api/recordings/storage), against
 * its quota: past it, its doctors' recordings wait on their devices (the server answers 507).
 * Not shown when it cannot be read: the rest of the dashboard does not depend on it.
 */
export const RecordingStorageCard = () => {
    const { t, i18n } = useTranslation('hospitals');
    const [storage, setStorage] = useState<Storage | null>(null);

    useEffect(() => {
        let cancelled = false;
        void (async () => {
            try {
                const { data } = await api.GET('/api/recordings/storage');
                if (!cancelled && data) setStorage(data);
            } catch {
                // Offline or refused: the card stays hidden.
            }
        })();
        return () => {
            cancelled = true;
        };
    }, []);

    if (!storage) return null;
    const share = storage.quotaBytes ? storage.heldBytes / storage.quotaBytes : 0;
    return (
        <section className="card hosp-stat" data-testid="recording-storage">
            <h2 className="hosp-stat-title">{t('Recording storage')}</h2>
            <p className="hosp-stat-value hosp-stat-value-small" data-testid="recording-storage-used">
                {t('{{used}} of {{quota}}', {
                    used: formatBytes(storage.heldBytes, i18n.language),
                    quota: formatBytes(storage.quotaBytes, i18n.language),
                })}
            </p>
            <progress
                className="hosp-storage-bar"
                max={1}
                value={Math.min(share, 1)}
                aria-label={t('Recording storage')}
            />
            <p className="hosp-stat-meta">
                {share >= ALMOST_FULL
                    ? t("Storage is almost full: recordings wait on doctors' devices once it is.")
                    : t('Recordings waiting to be processed')}
            </p>
        </section>
    );
};
