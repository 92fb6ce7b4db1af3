import type { InterimLine, TranscriptEntry } from '../live/liveSocket';
import type { Speaker } from '../live/protocol';

/** Finished lines followed by the lines still being spoken (user first, as they would close). */
export const withInterim = (
    lines: TranscriptEntry[],
    interim: Partial<Record<Speaker, InterimLine>>,
): (TranscriptEntry & { interim?: boolean })[] => {
    const open = (['user', 'assistant', 'tool'] as const)
        .filter(speaker => interim[speaker]?.text)
        .map((speaker, i) => {
            const { text, at } = interim[speaker]!;
            return { id: -1 - i, speaker, text, at, interim: true };
        });
    return [...lines, ...open];
};

/** Local time of an ISO timestamp in the interface language (hh:mm:ss). */
export const formatTime = (iso: string, language: string): string => {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return '';
    try {
        const format = new Intl.DateTimeFormat(language, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
        return format.format(date);
    } catch {
        return date.toLocaleTimeString();
    }
};
