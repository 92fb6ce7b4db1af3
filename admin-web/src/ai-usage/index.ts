import InsightsIcon from '@mui/icons-material/Insights';
import { lazy } from 'react';

export default {
    list: lazy(() => import('./AiUsageList').then(module => ({ default: module.AiUsageList }))),
    icon: InsightsIcon,
};
