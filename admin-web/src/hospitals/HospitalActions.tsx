import BlockIcon from '@mui/icons-material/Block';
import RestoreIcon from '@mui/icons-material/Restore';
import VerifiedIcon from '@mui/icons-material/Verified';
import { Stack } from '@mui/material';
import { useRecordContext } from 'react-admin';
import { RecordActionButton } from '../components/RecordActionButton';
import type { Hospital } from '../lib/api/records';

/** Verify while pending; Suspend or Reinstate the hospital's tenant, after confirmation. */
export const HospitalActions = () => {
    const hospital = useRecordContext<Hospital>();
    if (!hospital) return null;
    return (
        <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end' }}>
            {!hospital.isVerified && (
                <RecordActionButton
                    resource="hospitals"
                    action="verify"
                    label="cara.actions.verify"
                    icon={<VerifiedIcon />}
                    success="cara.hospitals.verified"
                    color="success"
                />
            )}
            {hospital.status === 'suspended' ? (
                <RecordActionButton
                    resource="hospitals"
                    action="reinstate"
                    label="cara.actions.reinstate"
                    icon={<RestoreIcon />}
                    success="cara.hospitals.reinstated"
                    confirm={{ title: 'cara.hospitals.reinstate_title', content: 'cara.hospitals.reinstate_content' }}
                />
            ) : (
                <RecordActionButton
                    resource="hospitals"
                    action="suspend"
                    label="cara.actions.suspend"
                    icon={<BlockIcon />}
                    success="cara.hospitals.suspended"
                    confirm={{ title: 'cara.hospitals.suspend_title', content: 'cara.hospitals.suspend_content' }}
                    color="error"
                />
            )}
        </Stack>
    );
};
