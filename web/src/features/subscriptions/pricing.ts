import type { BillingCycle, Plan } from './api';

/** Spec §3/§9: without its own annual price a plan costs 12 months less 15% a year. */
export const DOCTOR_ANNUAL_DISCOUNT = 0.15;

export const annualPriceOf = (plan: Pick<Plan, 'price'> & { annualPrice?: number | null }): number =>
    plan.annualPrice ?? Math.round(plan.price * 12 * (1 - DOCTOR_ANNUAL_DISCOUNT) * 100) / 100;

export const priceFor = (plan: Plan, cycle: BillingCycle): number =>
    cycle === 'annual' ? annualPriceOf(plan) : plan.price;

/** Spec §9 savings badge: 12 x monthly minus annual, only when positive. */
export const annualSavings = (plan: Plan): number => {
    const savings = Math.round((plan.price * 12 - annualPriceOf(plan)) * 100) / 100;
    return savings > 0 ? savings : 0;
};

/** Spec §2: the plan badge's colour follows gold, silver or bronze in its name. */
export const planTone = (name: string): 'gold' | 'silver' | 'bronze' | 'primary' => {
    const lower = name.toLowerCase();
    if (lower.includes('gold')) return 'gold';
    if (lower.includes('silver')) return 'silver';
    if (lower.includes('bronze')) return 'bronze';
    return 'primary';
};
