import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDataProvider } from 'react-admin';
import type { AdminDataProvider, TimeRange } from '../lib/dataProvider';
import { EMPTY_ANALYTICS, EMPTY_STATS, normalizeAnalytics, normalizeStats } from './stats';

const REFRESH_MS = 30_000;

/**
 * A failed dashboard load is logged and its section shows zeros (spec §8).
 * (A 401 has already signed the admin out: useDataProvider runs checkError.)
 */
const fallback = async <T>(what: string, load: () => Promise<T>, empty: T): Promise<T> => {
    try {
        return await load();
    } catch (error) {
        console.error(`Failed to load ${what}`, error);
        return empty;
    }
};

export const useAdminStats = (timeRange: TimeRange) => {
    const dataProvider = useDataProvider<AdminDataProvider>();
    return useQuery({
        queryKey: ['admin', 'stats', timeRange],
        queryFn: () =>
            fallback('admin stats', async () => normalizeStats(await dataProvider.getStats(timeRange)), EMPTY_STATS),
        placeholderData: keepPreviousData,
        // The rollups follow a payment or signup within a minute; the open overview follows them.
        refetchInterval: REFRESH_MS,
    });
};

export const useSubscriptionAnalytics = () => {
    const dataProvider = useDataProvider<AdminDataProvider>();
    return useQuery({
        queryKey: ['admin', 'subscription-analytics'],
        queryFn: () =>
            fallback(
                'subscription analytics',
                async () => normalizeAnalytics(await dataProvider.getSubscriptionAnalytics()),
                EMPTY_ANALYTICS,
            ),
        refetchInterval: REFRESH_MS,
    });
};
