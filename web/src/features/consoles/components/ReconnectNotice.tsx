/**
 * What the doctor sees while the link is down: the consultation is kept and
 * will be rejoined, for as long as the page is open (a countdown to the next
 * try, or that a try is under way, and a 'Retry now' button at all times), and how much microphone audio waits to be sent, or could not be
 * kept, so nothing is lost without a sign.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

export const ReconnectNotice = ({ retryAt, onRetry }: { retryAt: number | null; onRetry: () => void }) => {
    const { t } = useTranslation('consoles');
    const [now, setNow] = useState(() => Date.now());
    useEffect(() => {
        if (retryAt === null) return;
        const timer = window.setInterval(() => setNow(Date.now()), 500);
        return () => window.clearInterval(timer);
    }, [retryAt]);
    const seconds = retryAt === null ? 0 : Math.max(0, Math.ceil((retryAt - now) / 1000));
    return (
        <div className="console-notice" role="status" data-testid="reconnect-notice">
            <p>
                {t('Connection lost. The consultation and its transcript are kept.')}{' '}
                <span data-testid="reconnect-countdown" data-seconds={retryAt === null ? '' : seconds}>
                    {retryAt !== null && seconds > 0
                        ? t('Trying again in {{count}} s.', { count: seconds })
                        : t('Trying to reconnect now...')}
                </span>
            </p>
            {/* Always offered: it skips the wait, or replaces an attempt the link left unanswered. */}
            <button type="button" className="console-notice-action" onClick={onRetry}>
                {t('Retry now')}
            </button>
        </div>
    );
};

export const OfflineAudioNotice = ({ waitingMs, droppedMs }: { waitingMs: number; droppedMs: number }) => {
    const { t } = useTranslation('consoles');
    if (waitingMs < 1000 && droppedMs < 1000) return null;
    return (
        <p className="console-notice console-notice-audio" data-testid="offline-audio">
            {waitingMs >= 1000 &&
                t('{{count}} s of your speech will be sent when the connection is back.', {
                    count: Math.round(waitingMs / 1000),
                })}{' '}
            {droppedMs >= 1000 &&
                t('{{count}} s of earlier speech could not be kept.', { count: Math.round(droppedMs / 1000) })}
        </p>
    );
};
