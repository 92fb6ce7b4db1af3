import type { Draft, TranscriptLine } from '../api';

/**
 * What a draft should be checked for before it is signed: sentences that rest on no line of
 * the transcript (possible inventions), and what the clinician or the patient said that no
 * sentence uses (possible omissions; Cara's own replies and tool results are not counted).
 * Only drafts the model wrote with evidence can be checked; a plain-text draft gives nothing.
 */
export interface DraftSafety {
    checked: boolean;
    unsupported: string[];
    omitted: TranscriptLine[];
}

const SPOKEN_BY_PEOPLE = new Set<TranscriptLine['speaker']>(['user', 'patient']);

export const draftSafety = (draft: Draft | undefined | null, lines: readonly TranscriptLine[]): DraftSafety => {
    const evidence = (draft?.evidence ?? []).filter(item => item.sentence?.trim());
    if (!draft || !evidence.length) return { checked: false, unsupported: [], omitted: [] };
    const cited = new Set(evidence.flatMap(item => item.lineIds ?? []));
    return {
        checked: true,
        unsupported: evidence.filter(item => !(item.lineIds ?? []).length).map(item => item.sentence),
        omitted: lines.filter(line => SPOKEN_BY_PEOPLE.has(line.speaker) && line.text.trim() && !cited.has(line.id)),
    };
};
