/**
 * The consultation record's calls (cara.consultations): list with filters
 * and the server's cursor, read, and the patient reference.
 */
import { api, errorMessage } from '@/lib/api/client';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';

type Schemas = components['schemas'];
export type ConsultationSummary = Schemas['ConsultationOut'];
export type Consultation = Schemas['ConsultationDetail'];
export type ConsultationPage = Schemas['ConsultationPage'];
export type PatientReference = Schemas['PatientReference'];
export type TranscriptLine = Consultation['lines'][number];
export type Draft = Consultation['drafts'][number];
export type Note = NonNullable<Consultation['note']>;
export type NoteEntry = Note['entries'][number];

/** `from` / `to`: whole days (YYYY-MM-DD, UTC), both included. */
export interface ConsultationFilters {
    q?: string;
    from?: string;
    to?: string;
    state?: ConsultationSummary['state'];
}

export const LOAD_FAILED = 'Something went wrong. Please try again.';
export const NETWORK_FAILED = 'Network error. Please check connection and try again.';

/** Runs one call: its data, or a failure with the server's message (or ours) and the status. */
const run = async <T>(
    call: () => Promise<{ data?: T; error?: unknown; response: Response }>,
    fallback = LOAD_FAILED,
): Promise<Result<T>> => {
    try {
        const { data, error, response } = await call();
        if (response.ok && data !== undefined) return { ok: true, data };
        return failure(errorMessage(error, fallback), response.status);
    } catch {
        return failure(NETWORK_FAILED);
    }
};

export const listConsultations = (filters: ConsultationFilters, cursor: string | null) =>
    run(() =>
        api.GET('/api/consultations', {
            params: { query: { ...filters, cursor: cursor ?? undefined } },
        }),
    );

export const getConsultation = (id: string) =>
    run(() => api.GET('/api/consultations/{consultation_id}', { params: { path: { consultation_id: id } } }));

export const updatePatientReference = (id: string, patientReference: PatientReference | null) =>
    run(() =>
        api.PATCH('/api/consultations/{consultation_id}', {
            params: { path: { consultation_id: id } },
            body: { patientReference },
        }),
    );
