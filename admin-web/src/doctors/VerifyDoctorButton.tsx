import VerifiedIcon from '@mui/icons-material/Verified';
import { useRecordContext } from 'react-admin';
import { RecordActionButton } from '../components/RecordActionButton';
import type { Doctor } from '../lib/api/records';

export const VerifyDoctorButton = () => {
    const doctor = useRecordContext<Doctor>();
    if (!doctor || doctor.isVerified) return null;
    return (
        <RecordActionButton
            resource="doctors"
            action="verify"
            label="cara.actions.verify"
            icon={<VerifiedIcon />}
            success="cara.doctors.verified"
            color="success"
        />
    );
};
