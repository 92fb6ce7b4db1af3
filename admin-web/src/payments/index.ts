import PaymentsIcon from '@mui/icons-material/Payments';
import { lazy } from 'react';

export default {
    list: lazy(() => import('./PaymentList').then(module => ({ default: module.PaymentList }))),
    icon: PaymentsIcon,
};
