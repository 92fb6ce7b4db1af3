import { describe, expect, it } from 'vitest';

import { sectionsForServer, sectionText } from './sections';

describe('radiology sections', () => {
    it('shows the impression list as numbered lines and other values as text', () => {
        expect(sectionText(['No acute findings.', ' ', 'Lung-RADS 2.'])).toBe('1. No acute findings.\n2. Lung-RADS 2.');
        expect(sectionText('Chest pain.')).toBe('Chest pain.');
        expect(sectionText(null)).toBe('');
        expect(sectionText(undefined)).toBe('');
    });

    it("sends the impression back as a list without the editor's numbers, and every section", () => {
        const body = sectionsForServer({ impression: '1. No acute findings.\n\n2) Lung-RADS 2.\nFollow-up in 12 months', findings: 'Clear.' });
        expect(body.impression).toEqual(['No acute findings.', 'Lung-RADS 2.', 'Follow-up in 12 months']);
        expect(body).toEqual({
            indication: '',
            technique: '',
            findings: 'Clear.',
            impression: ['No acute findings.', 'Lung-RADS 2.', 'Follow-up in 12 months'],
            radsCategory: '',
            recommendation: '',
        });
    });

    it('round-trips: what the editor shows is what it sends', () => {
        const impression = ['Nodule 6 mm, right upper lobe.', 'Lung-RADS 3.'];
        expect(sectionsForServer({ impression: sectionText(impression) }).impression).toEqual(impression);
    });
});
