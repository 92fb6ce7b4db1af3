import { FunctionField, Show, SimpleShowLayout, TextField, TopToolbar, useTranslate } from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import { VerificationChip } from '../components/StatusChips';
import { HospitalName, Specialization } from './DoctorFields';
import { VerifyDoctorButton } from './VerifyDoctorButton';
import type { Doctor } from '../lib/api/records';

const Actions = () => (
    <TopToolbar>
        <VerifyDoctorButton />
    </TopToolbar>
);

const AccountStatus = ({ doctor }: { doctor: Doctor }) => {
    const translate = useTranslate();
    return <>{translate(doctor.isActive ? 'cara.status.active' : 'cara.status.inactive')}</>;
};

export const DoctorShow = () => (
    <Show actions={<Actions />}>
        <SimpleShowLayout>
            <TextField source="name" />
            <TextField source="email" />
            <FunctionField<Doctor> source="specialization" render={doctor => <Specialization doctor={doctor} />} />
            <FunctionField<Doctor> source="hospitalName" render={doctor => <HospitalName doctor={doctor} />} />
            <FunctionField<Doctor>
                source="isVerified"
                render={doctor => <VerificationChip verified={doctor.isVerified} />}
            />
            <FunctionField<Doctor> source="isActive" render={doctor => <AccountStatus doctor={doctor} />} />
            <FunctionField<Doctor> source="createdAt" render={doctor => <LocalizedDate value={doctor.createdAt} />} />
        </SimpleShowLayout>
    </Show>
);
