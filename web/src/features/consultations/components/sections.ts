/**
 * Radiology report sections (design notes, "Radiology drafts"): the order a
 * structured note is shown and edited in, with their English labels
 * (translation keys of the `consultations` namespace). The impression is a
 * numbered list on the server and one item per line in the editor.
 */
export const SECTION_LABELS: Record<string, string> = {
    indication: 'Indication',
    technique: 'Technique',
    findings: 'Findings',
    impression: 'Impression',
    radsCategory: 'RADS category',
    recommendation: 'Recommendation',
};

export const RADIOLOGY_SECTIONS = Object.keys(SECTION_LABELS);

/** A section's value as text: a list (the impression) as numbered lines. */
export const sectionText = (value: unknown): string => {
    if (Array.isArray(value))
        return value
            .map(item => String(item ?? '').trim())
            .filter(Boolean)
            .map((item, index) => `${index + 1}. ${item}`)
            .join('\n');
    return value === null || value === undefined ? '' : String(value);
};

/** The editor's text back to the server's shape: the impression's lines without their numbers. */
export const sectionsForServer = (sections: Record<string, string>) => ({
    indication: sections.indication ?? '',
    technique: sections.technique ?? '',
    findings: sections.findings ?? '',
    impression: (sections.impression ?? '')
        .split('\n')
        .map(line => line.replace(/^\s*\d+[.)]\s*/, '').trim())
        .filter(Boolean),
    radsCategory: sections.radsCategory ?? '',
    recommendation: sections.recommendation ?? '',
});
