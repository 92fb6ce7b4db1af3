/**
 * Opening a consultation once the doctor confirmed the patient's consent
 * (POST /api/consultations). The answer's id is what the live socket's first
 * frame carries; the server relays nothing without it.
 */
import { api, errorMessage } from '@/lib/api/client';
import { NETWORK_FAILED } from '@/lib/api/messages';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';

export type PatientReference = components['schemas']['PatientReference'];
export type OpenedConsultation = components['schemas']['ConsultationOut'];

export const CONSENT_FAILED = 'The consultation could not be started. Please try again.';

/**
 * `consent`: the doctor confirmed it in the dialog; false only where the tenant made consent not
 * mandatory (the server then records the tenant's policy as the basis).
 */
export const openConsultation = async (
    console: string,
    patientReference: PatientReference | null,
    consent = true,
): Promise<Result<OpenedConsultation>> => {
    try {
        const { data, error, response } = await api.POST('/api/consultations', {
            body: { console, consent, patientReference },
        });
        if (response.ok && data) return { ok: true, data };
        return failure(errorMessage(error, CONSENT_FAILED), response.status);
    } catch {
        return failure(NETWORK_FAILED);
    }
};

/** Whether this doctor's consultations need the consent click (true unless the tenant said otherwise). */
export const consentMandatory = async (): Promise<boolean> => {
    try {
        const { data } = await api.GET('/api/consultations/settings');
        return data?.consentMandatory !== false;
    } catch {
        return true;
    }
};
