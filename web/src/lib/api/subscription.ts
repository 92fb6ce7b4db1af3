import { api } from './client';
import { failure, type Result } from './result';
import type { components } from './schema';

/**
 * GET /api/subscription/current (spec §7): the signed-in account's plan, read
 * by the subscription pages and by both dashboards.
 */
export type CurrentSubscription = components['schemas']['CurrentSubscription'];

export const fetchCurrentSubscription = async (): Promise<Result<CurrentSubscription>> => {
    try {
        const { data, response } = await api.GET('/api/subscription/current');
        if (data) {
            if (typeof data.status !== 'string') return failure('Invalid subscription data received from server');
            return { ok: true, data };
        }
        if (response.status === 404) return failure('Could not retrieve subscription information.', 404);
        if (response.status === 401) return failure('Authentication failed. Please log in again.', 401);
        return failure('Failed to fetch current subscription information.', response.status);
    } catch {
        return failure('Failed to fetch current subscription information.');
    }
};
