/**
 * What an API call gives a screen: the data, or a failure it can show without
 * knowing HTTP. `message` is an English text of the spec (a translation key)
 * or the server's own message; a call that leaves the text to its screen
 * (sign-in, reset, sign-up) gives '' when the server sent none, and the
 * screen shows its own. `status` is the HTTP status, absent when the server
 * could not be reached or the call never went out. `fields` holds the
 * per-field messages of a 422/409 answer, keyed like the form fields.
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
