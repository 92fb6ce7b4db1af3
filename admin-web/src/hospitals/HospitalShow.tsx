import { FunctionField, Show, SimpleShowLayout, TextField, TopToolbar, NumberField } from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import { TenantStatusChip, VerificationChip } from '../components/StatusChips';
import { HospitalActions } from './HospitalActions';
import type { Hospital } from '../lib/api/records';

const Actions = () => (
    <TopToolbar>
        <HospitalActions />
    </TopToolbar>
);

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
            <FunctionField<Hospital> source="createdAt" render={hospital => <LocalizedDate value={hospital.createdAt} />} />
        </SimpleShowLayout>
    </Show>
);
