import MedicalServicesIcon from '@mui/icons-material/MedicalServices';
import { lazy } from 'react';

// Screens load on first visit: the entry chunk holds only the shell and the login page.
export default {
    list: lazy(() => import('./DoctorList').then(module => ({ default: module.DoctorList }))),
    show: lazy(() => import('./DoctorShow').then(module => ({ default: module.DoctorShow }))),
    icon: MedicalServicesIcon,
    recordRepresentation: 'name',
};
