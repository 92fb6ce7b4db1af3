/**
 * What an API call gives a screen: the data, or a failure it can show without
 * knowing HTTP. `message` is an English text of the spec (a translation key)
 * or the server's own message; `fields` holds the per-field messages of a
 * 422/409 answer, keyed like the form fields.
 */
export interface Failure {
    ok: false;
    message: string;
    status?: number;
    fields: Record<string, string>;
}

export type Result<T> = { ok: true; data: T } | Failure;

export const failure = (message: string, status?: number, fields: Record<string, string> = {}): Failure => ({
    ok: false,
    message,
    status,
    fields,
});
