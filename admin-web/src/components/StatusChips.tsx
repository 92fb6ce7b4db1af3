import { Chip } from '@mui/material';
import { useTranslate } from 'react-admin';

/** Verified / Pending (spec: "Status badge: Verified or Pending"). */
export const VerificationChip = ({ verified }: { verified: boolean }) => {
    const translate = useTranslate();
    return (
        <Chip
            size="small"
            color={verified ? 'success' : 'warning'}
            variant={verified ? 'filled' : 'outlined'}
            label={translate(verified ? 'cara.status.verified' : 'cara.status.pending')}
            data-testid="verification-status"
        />
    );
};

/** A hospital tenant is active or suspended (suspension refuses all its users). */
export const TenantStatusChip = ({ status }: { status: string | undefined }) => {
    const translate = useTranslate();
    const suspended = status === 'suspended';
    return (
        <Chip
            size="small"
            color={suspended ? 'error' : 'default'}
            variant="outlined"
            label={translate(suspended ? 'cara.status.suspended' : 'cara.status.active')}
            data-testid="tenant-status"
        />
    );
};

/** Spec: payment status 'succeeded' in green, any other in red. */
export const PaymentStatusChip = ({ status }: { status: string | undefined }) => {
    const translate = useTranslate();
    const text = status ?? '';
    return (
        <Chip
            size="small"
            color={text === 'succeeded' ? 'success' : 'error'}
            label={translate(`cara.payment_status.${text}`, { _: text })}
            data-testid="payment-status"
        />
    );
};
