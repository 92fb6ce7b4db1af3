import HistoryIcon from '@mui/icons-material/History';
import { lazy } from 'react';

export default {
    list: lazy(() => import('./AuditEventList').then(module => ({ default: module.AuditEventList }))),
    icon: HistoryIcon,
};
