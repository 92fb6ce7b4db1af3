const dollars = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
});

/**
 * Amounts are dollars (not cents) and always shown as "$12.00": the spec fixes
 * the dollar sign and two decimals, so this does not follow the UI language.
 */
export const formatDollars = (amount: unknown): string =>
    dollars.format(typeof amount === 'number' && Number.isFinite(amount) ? amount : 0);

/** A date (ISO string) in the UI language, or '' when absent or invalid. */
export const formatDate = (value: unknown, locale: string, withTime = false): string => {
    if (typeof value !== 'string' && typeof value !== 'number') return '';
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return '';
    return withTime
        ? date.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' })
        : date.toLocaleDateString(locale, { dateStyle: 'medium' });
};
