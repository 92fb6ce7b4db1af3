import simpleRestProvider from 'ra-data-simple-rest';
import { HttpError, type DataProvider, type Identifier, type RaRecord } from 'react-admin';
import { ADMIN_API_URL, httpClient, httpStatus, serverMessage } from './http';

export type TimeRange = 'weekly' | 'monthly' | 'yearly';

/** POST /api/admin/{resource}/{id}/{action} actions that return the updated record. */
export type RecordAction = 'verify' | 'suspend' | 'reinstate';

export interface AdminDataProvider extends DataProvider {
    /** GET /api/admin/stats: raw JSON, normalised by the dashboard. */
    getStats(timeRange: TimeRange): Promise<unknown>;
    /** GET /api/admin/subscription-analytics: raw JSON, normalised by the dashboard. */
    getSubscriptionAnalytics(): Promise<unknown>;
    runAction<T extends RaRecord = RaRecord>(
        resource: 'hospitals' | 'doctors',
        id: Identifier,
        action: RecordAction,
    ): Promise<{ data: T }>;
}

/**
 * Load failures per list (spec §8 "Admin loads"), as i18n keys. The status is
 * kept on the rethrown error so authProvider.checkError still sees a 401.
 */
const loadErrorKey = (resource: string, error: unknown): string => {
    const status = httpStatus(error);
    switch (resource) {
        case 'hospitals':
        case 'doctors':
            if (status === 401) return 'cara.errors.admin_unauthorized';
            if (status === 403) return 'cara.errors.admin_forbidden';
            return `cara.errors.${resource}_failed`;
        case 'payment-history':
            if (status === 401) return 'cara.errors.payments_unauthorized';
            if (status === 403) return 'cara.errors.payments_forbidden';
            return serverMessage(error) ?? 'cara.errors.payments_failed';
        default:
            return serverMessage(error) ?? 'cara.errors.load_failed';
    }
};

const explainLoadError = async <R>(resource: string, call: Promise<R>): Promise<R> => {
    try {
        return await call;
    } catch (error) {
        if ((error as Error)?.name === 'AbortError') throw error;
        // Logged as-is for whoever debugs; the screen gets the spec's text.
        console.error(`Failed to load ${resource}`, error);
        throw new HttpError(loadErrorKey(resource, error), httpStatus(error) ?? 0, (error as HttpError)?.body);
    }
};

const rest = simpleRestProvider(ADMIN_API_URL, httpClient);

/**
 * ra-data-simple-rest on /api/admin (sort/range/filter as JSON query
 * parameters, total from Content-Range) plus the console's own calls.
 */
export const dataProvider: AdminDataProvider = {
    ...rest,
    getList: (resource, params) => explainLoadError(resource, rest.getList(resource, params)),
    getOne: (resource, params) => explainLoadError(resource, rest.getOne(resource, params)),
    getMany: (resource, params) => explainLoadError(resource, rest.getMany(resource, params)),

    async getStats(timeRange) {
        const query = new URLSearchParams({ timeRange });
        const { json } = await httpClient(`${ADMIN_API_URL}/stats?${query}`);
        return json;
    },

    async getSubscriptionAnalytics() {
        const { json } = await httpClient(`${ADMIN_API_URL}/subscription-analytics`);
        return json;
    },

    async runAction<T extends RaRecord = RaRecord>(
        resource: 'hospitals' | 'doctors',
        id: Identifier,
        action: RecordAction,
    ) {
        const { json } = await httpClient(
            `${ADMIN_API_URL}/${resource}/${encodeURIComponent(String(id))}/${action}`,
            { method: 'POST' },
        );
        return { data: json as T };
    },
};
