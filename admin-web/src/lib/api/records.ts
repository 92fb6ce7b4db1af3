import type { RaRecord } from 'react-admin';

import type { components } from '@api/schema';

/**
 * The rows the console lists and shows, as the API sends them: taken from the
 * web app's generated client types (web/src/lib/api/schema.d.ts, written by
 * ./ops/gen-api-client from the API's OpenAPI document, never edited by hand;
 * a type-only import, so nothing of the web app is bundled), so a changed answer
 * fails the type check instead of drifting from a hand-made copy.
 * react-admin needs each row's `id`, which every one of them has.
 */
type Schemas = components['schemas'];

/** GET /api/admin/doctors rows. */
export type Doctor = Schemas['DoctorOut'] & RaRecord;
/** GET /api/admin/hospitals rows. */
export type Hospital = Schemas['HospitalOut'] & RaRecord;
/** GET /api/admin/audit-events rows: append-only, newest first. */
export type AuditEvent = Schemas['AuditEventOut'] & RaRecord;
/** GET /api/admin/ai-usage rows: live AI minutes and tokens per hospital over a period. */
export type AiUsage = Schemas['AiUsageOut'] & RaRecord;
/** GET /api/admin/payment-history rows. */
export type Payment = Schemas['PaymentOut'] & RaRecord;
