import { FunctionField, Show, SimpleShowLayout, TextField, TopToolbar, NumberField, useLocaleState } from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import { TenantStatusChip, VerificationChip } from '../components/StatusChips';
import { HospitalActions } from './HospitalActions';
import type { Hospital } from '../lib/api/records';

const Actions = () => (
    <TopToolbar>
        <HospitalActions />
    </TopToolbar>
);

/** Megabytes below a gigabyte, gigabytes above, in the console's language. */
const bytes = (size: number, locale: string): string =>
    size >= 1024 ** 3
        ? new Intl.NumberFormat(locale, { style: 'unit', unit: 'gigabyte', maximumFractionDigits: 1 }).format(size / 1024 ** 3)
        : new Intl.NumberFormat(locale, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 0 }).format(
              Math.ceil(size / 1024 ** 2),
          );

/** Recorded audio the hospital holds until it is transcribed, against its quota. */
const RecordingStorage = ({ hospital }: { hospital: Hospital }) => {
    const [locale] = useLocaleState();
    if (hospital.recordingHeldBytes == null || hospital.recordingQuotaBytes == null) return null;
    return (
        <span data-testid="recording-storage">
            {bytes(hospital.recordingHeldBytes, locale)} / {bytes(hospital.recordingQuotaBytes, locale)}
        </span>
    );
};

export const HospitalShow = () => (
    <Show actions={<Actions />}>
        <SimpleShowLayout>
            <TextField source="name" />
            <TextField source="email" />
            <TextField source="city" />
            <TextField source="country" />
            <FunctionField<Hospital>
                source="isVerified"
                render={hospital => <VerificationChip verified={hospital.isVerified} />}
            />
            <FunctionField<Hospital> source="status" render={hospital => <TenantStatusChip status={hospital.status} />} />
            <NumberField source="doctorsCount" />
            <FunctionField<Hospital>
                source="recordingHeldBytes"
                render={hospital => <RecordingStorage hospital={hospital} />}
            />
            <FunctionField<Hospital> source="createdAt" render={hospital => <LocalizedDate value={hospital.createdAt} />} />
        </SimpleShowLayout>
    </Show>
);
