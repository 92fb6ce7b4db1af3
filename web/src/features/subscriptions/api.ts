import { api, errorMessage } from '@/lib/api/client';
import { failure as fail, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';
import type { CurrentSubscription } from '@/lib/api/subscription';

/**
 * The subscription calls of spec §7, each turned into a result the pages can
 * show without knowing HTTP. Messages are English texts of spec §8 (they are
 * translation keys) or the server's own message when it sent one. The current
 * plan (read by the dashboards too) is fetched by lib/api/subscription.
 */
export type { CurrentSubscription };
export type Plan = components['schemas']['PlanOut'];
export type BillingCycle = 'monthly' | 'annual';
export type Audience = 'hospital' | 'doctor';

export const fetchPlans = async (audience: Audience): Promise<Result<Plan[]>> => {
    try {
        const { data, response } = await api.GET('/api/subscription/plans/{audience}', {
            params: { path: { audience } },
        });
        if (data) {
            if (!Array.isArray(data)) return fail('Invalid response format: expected an array of subscription plans');
            return { ok: true, data };
        }
        if (response.status === 401) return fail('Authentication failed. Please log in again.', 401);
        if (response.status === 403) return fail('You do not have permission to access this resource.', 403);
        return fail('Failed to fetch subscription plans', response.status);
    } catch {
        return fail('Failed to fetch subscription plans');
    }
};

export const createCheckoutSession = async (
    planName: string,
    billingCycle: BillingCycle,
    userId: string,
): Promise<Result<{ url: string; mode: 'checkout' | 'portal' }>> => {
    try {
        const { data, error, response } = await api.POST('/api/subscription/create-checkout-session', {
            body: { planName, billingCycle, userId },
        });
        if (data) {
            if (!data.url) return fail('Failed to redirect to checkout');
            return { ok: true, data: { url: data.url, mode: data.mode } };
        }
        return fail(errorMessage(error, 'Failed to create checkout session'), response.status);
    } catch {
        return fail('Failed to initiate subscription. Please try again.');
    }
};

export const confirmCheckoutSession = async (sessionId: string): Promise<Result<CurrentSubscription>> => {
    try {
        const { data, error, response } = await api.POST('/api/subscription/confirm-session', {
            body: { sessionId },
        });
        if (data) return { ok: true, data };
        return fail(errorMessage(error, 'Failed to confirm subscription session.'), response.status);
    } catch {
        return fail('Failed to confirm subscription. Please check your dashboard or contact support.');
    }
};

export const openBillingPortal = async (): Promise<Result<string>> => {
    try {
        const { data, error, response } = await api.POST('/api/subscription/portal-session');
        if (data?.url) return { ok: true, data: data.url };
        return fail(errorMessage(error, 'Failed to open the billing portal'), response.status);
    } catch {
        return fail('Failed to open the billing portal');
    }
};

export const verifyPaymentSetup = async (): Promise<Result<{ testMode: boolean }>> => {
    try {
        const { data, error, response } = await api.GET('/api/stripe/verify');
        if (data?.ok) return { ok: true, data: { testMode: data.testMode } };
        if (data) return fail(data.message || 'Payment system is not properly configured');
        return fail(errorMessage(error, 'Failed to verify Stripe configuration'), response.status);
    } catch {
        return fail('Failed to load Stripe');
    }
};

/**
 * What survives the trip through the payment page (spec §4 "Doctor
 * checkout"): the role in localStorage so the success page knows which
 * dashboard to offer, the billing cycle in sessionStorage (this tab only).
 */
const ROLE_KEY = 'subscriptionRole';
const CYCLE_KEY = 'subscriptionBillingCycle';

const quietly = <T>(work: () => T, fallback: T): T => {
    try {
        return work();
    } catch {
        return fallback; // storage disabled: the flow still works, only the memory is lost
    }
};

export const checkoutMemory = {
    save(role: string, cycle: BillingCycle): void {
        quietly(() => {
            localStorage.setItem(ROLE_KEY, role);
            sessionStorage.setItem(CYCLE_KEY, cycle);
        }, undefined);
    },
    role: (): string | null => quietly(() => localStorage.getItem(ROLE_KEY), null),
    clearRole: (): void => quietly(() => localStorage.removeItem(ROLE_KEY), undefined),
    cycle: (): BillingCycle =>
        quietly(() => (sessionStorage.getItem(CYCLE_KEY) === 'annual' ? 'annual' : 'monthly'), 'monthly'),
    clearCycle: (): void => quietly(() => sessionStorage.removeItem(CYCLE_KEY), undefined),
};
