/**
 * Dates and prices written the way the reader's language writes them; English
 * readers get US English (spec §5: long US English dates).
 */
const locale = (language: string): string => (language === 'en' ? 'en-US' : language);

/**
 * A long date ('March 5, 2026'). `null` for a missing date and 'invalid' for
 * one that does not parse, so the page can say 'N/A' / 'Not set' or
 * 'Invalid Date' in the reader's language.
 */
export const formatLongDate = (value: string | null | undefined, language: string): string | null | 'invalid' => {
    if (value === null || value === undefined || !String(value).trim()) return null;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return 'invalid';
    try {
        return new Intl.DateTimeFormat(locale(language), { year: 'numeric', month: 'long', day: 'numeric' }).format(
            date,
        );
    } catch {
        return 'invalid';
    }
};

/** Prices are USD with two decimals. */
export const formatPrice = (amount: number, language: string): string =>
    new Intl.NumberFormat(locale(language), {
        style: 'currency',
        currency: 'USD',
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
    }).format(amount);
