/**
 * The dashboard's data, normalised: any missing or malformed part of an API
 * answer becomes zeros and empty lists (spec §3 "Admin stats ... defaulting to
 * zeros and empty lists"), so a failed or partial load leaves the section empty.
 */

export interface Series {
    labels: string[];
    data: number[];
}

export interface AdminStats {
    totalHospitals: number;
    totalDoctors: number;
    activeSubscriptions: number;
    /** Dollars. */
    monthlyRevenue: number;
    revenue: Series;
    subscriptions: {
        total: number;
        active: number;
        expired: number;
        byPlan: Record<string, number>;
        byType: { hospital: number; doctor: number };
    };
    /** When the rollups these figures come from were computed (ISO time); null before the first. */
    computedAt: string | null;
}

export interface SubscriptionAnalytics {
    /** Dollars. */
    totalRevenue: number;
    activeSubscriptions: number;
    subscriptionTrends: Series;
    /** Spec §3: revenue by plan, labels and data merged into a label → amount map. */
    revenueByPlan: Record<string, number>;
}

export const EMPTY_STATS: AdminStats = {
    totalHospitals: 0,
    totalDoctors: 0,
    activeSubscriptions: 0,
    monthlyRevenue: 0,
    revenue: { labels: [], data: [] },
    subscriptions: { total: 0, active: 0, expired: 0, byPlan: {}, byType: { hospital: 0, doctor: 0 } },
    computedAt: null,
};

export const EMPTY_ANALYTICS: SubscriptionAnalytics = {
    totalRevenue: 0,
    activeSubscriptions: 0,
    subscriptionTrends: { labels: [], data: [] },
    revenueByPlan: {},
};

type Json = Record<string, unknown>;

const object = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const numbers = (value: unknown): number[] => (Array.isArray(value) ? value.map(number) : []);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(item => String(item ?? '')) : []);

const countMap = (value: unknown): Record<string, number> =>
    Object.fromEntries(Object.entries(object(value)).map(([key, count]) => [key, number(count)]));

export const normalizeStats = (raw: unknown): AdminStats => {
    const stats = object(raw);
    const revenueData = object(stats.revenueData);
    const firstDataset = object(Array.isArray(revenueData.datasets) ? revenueData.datasets[0] : undefined);
    const series = numbers(firstDataset.data);
    const details = object(stats.subscriptionDetails);
    const byType = object(details.byType);
    return {
        totalHospitals: number(stats.totalHospitals),
        totalDoctors: number(stats.totalDoctors),
        activeSubscriptions: number(stats.activeSubscriptions),
        // The month's revenue is also the last point of the revenue series (spec §3).
        monthlyRevenue:
            typeof stats.monthlyRevenue === 'number' ? number(stats.monthlyRevenue) : (series.at(-1) ?? 0),
        revenue: { labels: strings(revenueData.labels), data: series },
        subscriptions: {
            total: number(details.total),
            active: number(details.active),
            expired: number(details.expired),
            byPlan: countMap(details.byPlan),
            byType: { hospital: number(byType.hospital), doctor: number(byType.doctor) },
        },
        computedAt:
            typeof stats.computedAt === 'string' && !Number.isNaN(Date.parse(stats.computedAt))
                ? stats.computedAt
                : null,
    };
};

export const normalizeAnalytics = (raw: unknown): SubscriptionAnalytics => {
    const analytics = object(raw);
    const trends = object(analytics.subscriptionTrends);
    const byPlan = object(analytics.revenueByPlan);
    const planLabels = strings(byPlan.labels);
    const planAmounts = numbers(byPlan.data);
    return {
        totalRevenue: number(analytics.totalRevenue),
        activeSubscriptions: number(analytics.activeSubscriptions),
        subscriptionTrends: { labels: strings(trends.labels), data: numbers(trends.data) },
        revenueByPlan: Object.fromEntries(planLabels.map((label, index) => [label, planAmounts[index] ?? 0])),
    };
};

/**
 * Revenue chart labels: the API's own when there is one per point, otherwise
 * month names from January, cut to the number of points (spec §9), in the UI
 * language.
 */
export const revenueLabels = (series: Series, locale: string): string[] => {
    if (series.labels.length === series.data.length && series.labels.length > 0) return series.labels;
    const month = new Intl.DateTimeFormat(locale, { month: 'short', timeZone: 'UTC' });
    return series.data.map((_, index) => month.format(new Date(Date.UTC(2000, index % 12, 1))));
};
