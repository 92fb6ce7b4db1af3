import { useEffect, useState, useSyncExternalStore } from 'react';

import { fetchDoctorPage, type Doctor } from './api';
import { Pager, type DoctorFilters, type PagerState } from './pager';

/** The hospital's doctors a page at a time (see `Pager`); a new `filters` value starts at page 1. */
export const useDoctorPager = (
    hospitalId: string,
    filters: DoctorFilters,
): { pager: Pager<Doctor>; state: PagerState<Doctor> } => {
    const [pager] = useState(() => new Pager<Doctor>((f, cursor) => fetchDoctorPage(hospitalId, f, cursor)));
    const state = useSyncExternalStore(pager.subscribe, pager.state);
    const key = JSON.stringify(filters);
    useEffect(() => {
        void pager.setFilters(JSON.parse(key) as DoctorFilters);
    }, [pager, key]);
    return { pager, state };
};
