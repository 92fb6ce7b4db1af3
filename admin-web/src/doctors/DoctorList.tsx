import { DataTable, List, NullableBooleanInput, SearchInput, SelectInput } from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import { VerificationChip } from '../components/StatusChips';
import { HospitalName, Specialization } from './DoctorFields';
import { VerifyDoctorButton } from './VerifyDoctorButton';
import type { Doctor } from '../lib/api/records';
import { SPECIALTIES } from './specialties';

const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput
        key="specialization"
        source="specialization"
        choices={SPECIALTIES.map(specialty => ({ id: specialty, name: `cara.specialties.${specialty}` }))}
    />,
    <NullableBooleanInput
        key="isVerified"
        source="isVerified"
        trueLabel="cara.status.verified"
        falseLabel="cara.status.pending"
    />,
];

const Column = DataTable.Col<Doctor>;

export const DoctorList = () => (
    <List filters={filters} sort={{ field: 'createdAt', order: 'DESC' }} perPage={25}>
        <DataTable rowClick="show" bulkActionButtons={false}>
            <Column source="name" />
            <Column source="email" />
            <Column source="specialization" render={doctor => <Specialization doctor={doctor} />} />
            <Column source="hospitalName" render={doctor => <HospitalName doctor={doctor} />} />
            <Column source="isVerified" render={doctor => <VerificationChip verified={doctor.isVerified} />} />
            <Column source="createdAt" render={doctor => <LocalizedDate value={doctor.createdAt} />} />
            <Column label="cara.actions.actions" disableSort align="right">
                <VerifyDoctorButton />
            </Column>
        </DataTable>
    </List>
);
