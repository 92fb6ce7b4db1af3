import { api, errorMessage } from '@/lib/api/client';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';

export type AuditEntry = components['schemas']['AuditEntry'];
export type AuditPage = components['schemas']['AuditPage'];
export type AuditGroup = 'doctor' | 'consultation' | 'record_settings' | 'profile' | 'recording';

export interface AuditFilters {
    group?: AuditGroup;
    from?: string;
    to?: string;
}

/** GET /api/doctors/audit-events: the hospital's own log, newest first, one page after `cursor`. */
export const fetchAuditPage = async (filters: AuditFilters, cursor: string | null): Promise<Result<AuditPage>> => {
    try {
        const { data, error, response } = await api.GET('/api/doctors/audit-events', {
            params: { query: { ...filters, cursor: cursor ?? undefined, limit: 50 } },
        });
        if (data) return { ok: true, data };
        return failure(errorMessage(error, 'The audit log could not be loaded.'), response.status);
    } catch {
        return failure('The audit log could not be loaded.');
    }
};
