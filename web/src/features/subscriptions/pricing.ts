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

/** Prices are USD with two decimals, written the way the chosen language writes numbers. */
export const formatPrice = (amount: number, language: string): string =>
    new Intl.NumberFormat(language === 'en' ? 'en-US' : language, {
        style: 'currency',
        currency: 'USD',
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
    }).format(amount);

/**
 * Long dates (spec §5: long US English for English readers). `null` for a
 * missing date and 'invalid' for one that does not parse, so the page can
 * show 'N/A' or 'Invalid Date' in the reader's language.
 */
export const formatLongDate = (value: string | null | undefined, language: string): string | null | 'invalid' => {
    if (!value) return null;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return 'invalid';
    try {
        return new Intl.DateTimeFormat(language === 'en' ? 'en-US' : language, {
            year: 'numeric',
            month: 'long',
            day: 'numeric',
        }).format(date);
    } catch {
        return 'invalid';
    }
};

/** Spec §2: the plan badge's colour follows gold, silver or bronze in its name. */
export const planTone = (name: string): 'gold' | 'silver' | 'bronze' | 'primary' => {
    const lower = name.toLowerCase();
    if (lower.includes('gold')) return 'gold';
    if (lower.includes('silver')) return 'silver';
    if (lower.includes('bronze')) return 'bronze';
    return 'primary';
};
