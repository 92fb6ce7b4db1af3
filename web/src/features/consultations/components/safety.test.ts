import { describe, expect, it } from 'vitest';

import type { Draft, TranscriptLine } from '../api';
import { draftSafety } from './safety';

const line = (id: number, speaker: TranscriptLine['speaker'], text: string): TranscriptLine =>
    ({ id, seq: id, speaker, text, spokenAt: '2026-12-03T10:00:00Z' }) as TranscriptLine;

const draft = (evidence: Draft['evidence']): Draft =>
    ({ id: 'd1', kind: 'note', text: '', evidence, codes: [] }) as unknown as Draft;

describe('draft safety', () => {
    const lines = [
        line(1, 'user', 'Cough for three weeks.'),
        line(2, 'assistant', 'Consider tuberculosis.'),
        line(3, 'patient', 'I also lost weight.'),
        line(4, 'tool', 'Dose check.'),
    ];

    it('marks sentences on no line and lists what people said that no sentence uses', () => {
        const safety = draftSafety(
            draft([
                { sentence: 'Cough for three weeks.', lineIds: [1] },
                { sentence: 'Chest X-ray was normal.', lineIds: [] },
            ]),
            lines,
        );
        expect(safety.checked).toBe(true);
        expect(safety.unsupported).toEqual(['Chest X-ray was normal.']);
        // Cara's reply and the tool's result are not omissions; the patient's words are.
        expect(safety.omitted.map(item => item.id)).toEqual([3]);
    });

    it('checks nothing for a draft without evidence', () => {
        expect(draftSafety(draft([]), lines)).toEqual({ checked: false, unsupported: [], omitted: [] });
        expect(draftSafety(undefined, lines).checked).toBe(false);
    });
});
