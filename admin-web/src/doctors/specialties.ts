/** Spec §1: the five specialties. */
export const SPECIALTIES = ['Radiologist', 'Radiotherapist', 'Cardiologist', 'General Practitioner', 'Nurse'] as const;
