/**
 * A radiotherapy plan review's calls: create it on the console's consultation, upload its
 * RTSTRUCT / RTDOSE / RTPLAN, compute it (a worker job) and read it back until it is done.
 */
import { api, errorMessage } from '@/lib/api/client';
import { NETWORK_FAILED } from '@/lib/api/messages';
import type { components } from '@/lib/api/schema';

export type PlanReview = components['schemas']['PlanReviewOut'];
export type PlanFileKind = 'rtstruct' | 'rtdose' | 'rtplan';
export const PLAN_FILE_KINDS: readonly PlanFileKind[] = ['rtstruct', 'rtdose', 'rtplan'];

/** A refusal the server worded (it names the file), or the network failure's key. */
export class PlanReviewError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'PlanReviewError';
    }
}

const fail = (error: unknown): never => {
    throw new PlanReviewError(errorMessage(error, NETWORK_FAILED));
};

export const createReview = async (consultationId: string): Promise<PlanReview> => {
    const { data, error } = await api.POST('/api/plan-reviews', { body: { consultationId } });
    return data ?? fail(error);
};

export const uploadFile = async (reviewId: string, kind: PlanFileKind, file: File): Promise<PlanReview> => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const { data, error } = await api.PUT('/api/plan-review-files/{review_id}/{kind}', {
        params: { path: { review_id: reviewId, kind }, query: { filename: file.name } },
        body: bytes as unknown as string,
        bodySerializer: body => body as unknown as BodyInit,
        headers: { 'Content-Type': 'application/octet-stream' },
    });
    return data ?? fail(error);
};

export type OrganCatalogue = components['schemas']['OrganCatalogue'];

export const compute = async (
    reviewId: string,
    fractions: number | null,
    structureOrgans: Record<string, string | null> = {},
): Promise<PlanReview> => {
    const { data, error } = await api.POST('/api/plan-reviews/{review_id}/compute', {
        params: { path: { review_id: reviewId } },
        body: { ...(fractions ? { fractions } : {}), structureOrgans },
    });
    return data ?? fail(error);
};

/** The QUANTEC organs a structure can be mapped to (for the physicist's corrections). */
export const readOrgans = async (): Promise<OrganCatalogue> => {
    const { data, error } = await api.GET('/api/plan-reviews/organs');
    return data ?? fail(error);
};

export const readReview = async (reviewId: string): Promise<PlanReview> => {
    const { data, error } = await api.GET('/api/plan-reviews/{review_id}', {
        params: { path: { review_id: reviewId } },
    });
    return data ?? fail(error);
};
