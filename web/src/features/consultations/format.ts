/**
 * How the consultation screens write times and lengths, in the reader's language.
 */
const locale = (language: string): string => (language === 'en' ? 'en-US' : language);

/** 'Mar 5, 2026, 14:05' */
export const formatDateTime = (value: string | null | undefined, language: string): string => {
    if (!value) return '';
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return '';
    return new Intl.DateTimeFormat(locale(language), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
};

/** '14:05:09': a transcript line's clock time. */
export const formatClock = (value: string | null | undefined, language: string): string => {
    if (!value) return '';
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return '';
    return new Intl.DateTimeFormat(locale(language), { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(
        date,
    );
};

/** Whole minutes and seconds ('12:04'); '' when unknown. */
export const formatDuration = (seconds: number | null | undefined): string => {
    if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '';
    const total = Math.round(seconds);
    const hours = Math.floor(total / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const rest = String(total % 60).padStart(2, '0');
    return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
};
