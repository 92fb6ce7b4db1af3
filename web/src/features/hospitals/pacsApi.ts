/**
 * The hospital's PACS (cara.imaging): read, save (the password is sent, never
 * read back) and "Test connection", which tries the address typed in before
 * it is saved.
 */
import { api, errorMessage, fieldErrors } from '@/lib/api/client';
import { NETWORK_FAILED, SOMETHING_WENT_WRONG } from '@/lib/api/messages';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';

export type PacsSettings = components['schemas']['PacsSettingsOut'];
export type PacsSettingsBody = components['schemas']['PacsSettingsIn'];
export type PacsTest = components['schemas']['PacsTestOut'];

export type PacsResult<T> = Result<T> & { fields?: Record<string, string> };

const run = async <T>(
    call: () => Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<PacsResult<T>> => {
    try {
        const { data, error, response } = await call();
        if (response.ok && data !== undefined) return { ok: true, data };
        return { ...failure(errorMessage(error, SOMETHING_WENT_WRONG), response.status), fields: fieldErrors(error) };
    } catch {
        return failure(NETWORK_FAILED);
    }
};

export const readPacs = () => run(() => api.GET('/api/imaging/pacs'));
export const savePacs = (body: PacsSettingsBody) => run(() => api.PUT('/api/imaging/pacs', { body }));
export const testPacs = (body: PacsSettingsBody) => run(() => api.POST('/api/imaging/pacs/test', { body }));
