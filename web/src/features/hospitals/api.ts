import { api, errorMessage, fieldErrors } from '@/lib/api/client';
import { failure as fail, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';
import { sessionStore } from '@/lib/session/storage';
import type { DoctorFilters, Page } from './pager';

/**
 * The doctor calls of spec §7 for a hospital's own doctors, each turned into
 * a result the screens can show without knowing HTTP. Messages are the
 * English texts of spec §8 "Doctors" (they are translation keys) or the
 * server's own message when it sent one; per-field messages of a 422/409
 * answer come back in `fields`, keyed like the form fields.
 */
/** A doctor as the screens use it: a row of the paged list, or a whole doctor (which has more). */
export type Doctor = components['schemas']['DoctorListItem'];
export type DoctorCreate = components['schemas']['DoctorCreate'];
export type DoctorUpdate = components['schemas']['DoctorUpdate'];
export type DoctorLimit = components['schemas']['DoctorLimitOut'];

const NO_TOKEN = 'No authentication token found';
const hasToken = (): boolean => Boolean(sessionStore.token());

/** GET /api/doctors?hospitalId=<own>&isHospitalCreated=true (spec §7, §8 "Doctors": list). */
export const fetchDoctors = async (hospitalId: string | null | undefined): Promise<Result<Doctor[]>> => {
    if (!hasToken()) return fail(NO_TOKEN);
    if (!hospitalId) return fail('Hospital ID is required');
    try {
        const { data, error, response } = await api.GET('/api/doctors', {
            params: { query: { hospitalId, isHospitalCreated: true } },
        });
        if (response.ok) {
            // An empty body is an empty list; anything but a list is malformed.
            if (data === undefined || data === null) return { ok: true, data: [] };
            if (!Array.isArray(data)) return fail('Invalid response format from server');
            return { ok: true, data };
        }
        if (response.status === 401) return fail('Authentication failed. Please log in again.', 401);
        if (response.status === 404) return fail('Hospital not found.', 404);
        return fail(errorMessage(error, 'Failed to fetch doctors'), response.status);
    } catch {
        return fail('Failed to load doctors');
    }
};

/**
 * GET /api/doctors/page: one page (50 rows) of the hospital's doctors, searched,
 * filtered and ordered on the server; `cursor` is the page before's `nextCursor`.
 */
export const fetchDoctorPage = async (
    hospitalId: string,
    filters: DoctorFilters,
    cursor: string | null,
): Promise<Result<Page<Doctor>>> => {
    if (!hasToken()) return fail(NO_TOKEN);
    if (!hospitalId) return fail('Hospital ID is required');
    try {
        const { data, error, response } = await api.GET('/api/doctors/page', {
            params: { query: { hospitalId, isHospitalCreated: true, ...filters, cursor: cursor ?? undefined } },
        });
        if (response.ok) {
            if (!data || !Array.isArray(data.items)) return fail('Invalid response format from server');
            return { ok: true, data };
        }
        if (response.status === 401) return fail('Authentication failed. Please log in again.', 401);
        if (response.status === 404) return fail('Hospital not found.', 404);
        return fail(errorMessage(error, 'Failed to fetch doctors'), response.status);
    } catch {
        return fail('Failed to load doctors');
    }
};

/** POST /api/doctors/new-doctor → the new doctor (its name goes in the success toast). */
export const addDoctor = async (body: DoctorCreate): Promise<Result<Doctor>> => {
    if (!hasToken()) return fail(NO_TOKEN);
    try {
        const { data, error, response } = await api.POST('/api/doctors/new-doctor', { body });
        if (data) return { ok: true, data };
        return fail(errorMessage(error, 'Failed to add doctor'), response.status, fieldErrors(error));
    } catch {
        return fail('Failed to add doctor');
    }
};

/** PUT /api/doctors/{id} with the changed fields plus hospitalId. */
export const updateDoctor = async (id: string, body: DoctorUpdate): Promise<Result<Doctor>> => {
    if (!hasToken()) return fail(NO_TOKEN);
    try {
        const { data, error, response } = await api.PUT('/api/doctors/{doctor_id}', {
            params: { path: { doctor_id: id } },
            body,
        });
        if (data) return { ok: true, data };
        return fail(errorMessage(error, 'Failed to update doctor'), response.status, fieldErrors(error));
    } catch {
        return fail('Failed to update doctor');
    }
};

/** The status toggle: PUT /api/doctors/{id} with `isActive` only (spec §7). */
export const setDoctorActive = async (id: string, isActive: boolean): Promise<Result<Doctor>> => {
    if (!hasToken()) return fail(NO_TOKEN);
    try {
        const { data, response } = await api.PUT('/api/doctors/{doctor_id}', {
            params: { path: { doctor_id: id } },
            body: { isActive },
        });
        if (data) return { ok: true, data };
        return fail('Failed to update doctor status', response.status);
    } catch {
        return fail('Failed to update doctor status');
    }
};

/** DELETE /api/doctors/{id} with the hospital id in the body. */
export const removeDoctor = async (id: string, hospitalId: string): Promise<Result<string>> => {
    if (!hasToken()) return fail(NO_TOKEN);
    try {
        const { data, error, response } = await api.DELETE('/api/doctors/{doctor_id}', {
            params: { path: { doctor_id: id } },
            body: { hospitalId },
        });
        if (data) return { ok: true, data: data.id };
        return fail(errorMessage(error, 'Failed to delete doctor'), response.status);
    } catch {
        return fail('Failed to delete doctor');
    }
};

/** GET /api/subscription/check-doctor-limit/{hospitalId}: may one more doctor be added? */
export const checkDoctorLimit = async (hospitalId: string): Promise<Result<DoctorLimit>> => {
    try {
        const { data, error, response } = await api.GET('/api/subscription/check-doctor-limit/{hospital_id}', {
            params: { path: { hospital_id: hospitalId } },
        });
        if (data && typeof data.canAdd === 'boolean') return { ok: true, data };
        return fail(errorMessage(error, 'Failed to check the doctor limit'), response.status);
    } catch {
        return fail('Failed to check the doctor limit');
    }
};

/** Spec §8: a refused add whose message names the subscription sends the hospital to its plans. */
export const mentionsSubscription = (message: string): boolean => /subscription/i.test(message);
