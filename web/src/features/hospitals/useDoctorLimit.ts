import { useCallback, useEffect, useRef, useState } from 'react';

import { checkDoctorLimit } from './api';

export interface DoctorLimitState {
    checking: boolean;
    canAdd: boolean;
    /** Why no doctor can be added (an English key of the hospitals texts); null when one can. */
    reason: string | null;
}

export const NO_PLAN_REASON = 'An active subscription is required to add doctors. Please choose a plan.';
export const LIMIT_REACHED_REASON = 'Doctor limit reached for your current plan. Upgrade to add more.';

/**
 * May the hospital add one more doctor now? Asked on mount and again on `recheck()` (after an
 * add or a removal). Without a plan there is no limit to speak of: the reason says a plan is
 * needed; at the plan's limit, that the limit is reached. A failed check lets the hospital try
 * (spec §8: the server has the last word).
 */
export const useDoctorLimit = (hospitalId: string): { limit: DoctorLimitState; recheck: () => Promise<void> } => {
    const [limit, setLimit] = useState<DoctorLimitState>({ checking: true, canAdd: false, reason: null });
    const mounted = useRef(true);
    useEffect(() => {
        mounted.current = true;
        return () => {
            mounted.current = false;
        };
    }, []);

    const recheck = useCallback(async () => {
        setLimit(current => ({ ...current, checking: true }));
        const result = hospitalId ? await checkDoctorLimit(hospitalId) : null;
        if (!mounted.current) return;
        if (!result?.ok || result.data.canAdd) {
            setLimit({ checking: false, canAdd: true, reason: null });
            return;
        }
        const noPlan = result.data.maxDoctors === null || result.data.maxDoctors === undefined;
        setLimit({ checking: false, canAdd: false, reason: noPlan ? NO_PLAN_REASON : LIMIT_REACHED_REASON });
    }, [hospitalId]);

    return { limit, recheck };
};
