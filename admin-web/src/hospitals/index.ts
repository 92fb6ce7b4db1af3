import LocalHospitalIcon from '@mui/icons-material/LocalHospital';
import { lazy } from 'react';

// Screens load on first visit: the entry chunk holds only the shell and the login page.
export default {
    list: lazy(() => import('./HospitalList').then(module => ({ default: module.HospitalList }))),
    show: lazy(() => import('./HospitalShow').then(module => ({ default: module.HospitalShow }))),
    icon: LocalHospitalIcon,
    recordRepresentation: 'name',
};
