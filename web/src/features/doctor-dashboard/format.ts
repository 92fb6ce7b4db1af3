/**
 * A subscription date in the reader's language (long US English for English,
 * as the other subscription screens). `null` when there is none and
 * 'invalid' when it does not parse, so the page can say 'Not set' or
 * 'Invalid date' (spec §2 "/doctor-dashboard").
 */
export const formatDate = (value: string | null | undefined, language: string): string | null | 'invalid' => {
    if (value === null || value === undefined || !String(value).trim()) return null;
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
