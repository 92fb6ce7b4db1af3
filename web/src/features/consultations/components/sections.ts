/**
 * Radiology report sections (design notes, "Radiology drafts"): the order a
 * structured note is shown and edited in, with their English labels
 * (translation keys of the `consultations` namespace).
 */
export const SECTION_LABELS: Record<string, string> = {
    indication: 'Indication',
    comparison: 'Comparison',
    technique: 'Technique',
    findings: 'Findings',
    impression: 'Impression',
    radsCategory: 'RADS category',
    recommendation: 'Recommendation',
};

export const RADIOLOGY_SECTIONS = Object.keys(SECTION_LABELS);

/** The sections to edit: the known ones in order, then any others the draft gave. */
export const sectionKeys = (sections: Record<string, unknown> | null | undefined): string[] => {
    const extra = Object.keys(sections ?? {}).filter(key => !(key in SECTION_LABELS));
    return [...RADIOLOGY_SECTIONS, ...extra];
};
