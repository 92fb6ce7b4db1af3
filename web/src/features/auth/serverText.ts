import type { TFunction } from 'i18next';

/**
 * The API answers in English (cara.auth.service, principal, ratelimit) and the
 * English sentence is the translation key, so most messages translate as
 * they are. The throttling message carries a number of minutes and is matched
 * to a key with a placeholder instead; a message without a translation is
 * shown in English rather than not at all.
 */
const THROTTLED = /^Too many failed login attempts\. Please try again in (\d+) minutes?\.$/;

export const serverText = (t: TFunction, message: string): string => {
    const throttled = THROTTLED.exec(message);
    if (throttled) {
        const minutes = Number(throttled[1]);
        return minutes === 1
            ? t('Too many failed login attempts. Please try again in 1 minute.')
            : t('Too many failed login attempts. Please try again in {{minutes}} minutes.', { minutes });
    }
    return t(message);
};
