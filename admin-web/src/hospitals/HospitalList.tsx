import {
    DataTable,
    List,
    NullableBooleanInput,
    SearchInput,
    SelectInput,
} from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import { TenantStatusChip, VerificationChip } from '../components/StatusChips';
import { HospitalActions } from './HospitalActions';
import type { Hospital } from '../lib/api/records';

const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <NullableBooleanInput
        key="isVerified"
        source="isVerified"
        trueLabel="cara.status.verified"
        falseLabel="cara.status.pending"
    />,
    <SelectInput
        key="status"
        source="status"
        choices={[
            { id: 'active', name: 'cara.status.active' },
            { id: 'suspended', name: 'cara.status.suspended' },
        ]}
    />,
];

const Column = DataTable.Col<Hospital>;

export const HospitalList = () => (
    <List filters={filters} sort={{ field: 'createdAt', order: 'DESC' }} perPage={25}>
        <DataTable rowClick="show" bulkActionButtons={false}>
            <Column source="name" />
            <Column source="email" />
            <Column source="city" />
            <Column source="isVerified" render={hospital => <VerificationChip verified={hospital.isVerified} />} />
            <DataTable.NumberCol source="doctorsCount" />
            <Column source="status" render={hospital => <TenantStatusChip status={hospital.status} />} />
            <Column source="createdAt" render={hospital => <LocalizedDate value={hospital.createdAt} />} />
            <Column label="cara.actions.actions" disableSort align="right">
                <HospitalActions />
            </Column>
        </DataTable>
    </List>
);
