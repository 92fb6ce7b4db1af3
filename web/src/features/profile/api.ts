import { paths } from '@/config/paths';
import { api, errorMessage, fieldErrors } from '@/lib/api/client';
import { SOMETHING_WENT_WRONG } from '@/lib/api/messages';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';
import { renewSession, sessionStore, type SessionUser } from '@/lib/session/storage';
import { MAX_FILE_BYTES, type ProfileBody } from './model';

/**
 * The profile calls: saving the doctor's profile, uploading a certificate
 * file (with progress) and downloading one. Messages are English keys (the
 * spec's texts, or the server's own, which are English texts too).
 */
export type CertificateFile = components['schemas']['CertificateFileOut'];

/** PUT /api/auth/doctor/profile → the updated user, as the session keeps it. */
export const saveProfile = async (body: ProfileBody): Promise<Result<SessionUser>> => {
    try {
        const { data, error, response } = await api.PUT('/api/auth/doctor/profile', { body });
        if (data) return { ok: true, data: data.user };
        return failure(errorMessage(error, 'Failed to update profile'), response.status, fieldErrors(error));
    } catch {
        return failure('Failed to update profile');
    }
};

// ------------------------------------------------------------ certificate files

export const WRONG_TYPE = 'Only PDF, PNG or JPEG files can be uploaded.';
export const TOO_LARGE = 'The file is larger than 5 MB.';
export const EMPTY_FILE = 'The file is empty.';
export const UPLOAD_FAILED = 'The file could not be uploaded. Please try again.';

const SIGNATURES: readonly (readonly number[])[] = [
    [0x25, 0x50, 0x44, 0x46, 0x2d], // %PDF-
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], // PNG
    [0xff, 0xd8, 0xff], // JPEG
];

/**
 * The browser's copy of the server's check (cara.profiles.certificates):
 * size first, then what the bytes are, whatever the name or the type the
 * system claims. Resolves to an English message, or null when it may go.
 */
export const checkCertificateFile = async (file: File): Promise<string | null> => {
    if (file.size > MAX_FILE_BYTES) return TOO_LARGE;
    if (file.size === 0) return EMPTY_FILE;
    const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
    const known = SIGNATURES.some(signature => signature.every((byte, i) => head[i] === byte));
    return known ? null : WRONG_TYPE;
};

/**
 * POST /api/auth/doctor/certificates as multipart form data. XMLHttpRequest,
 * not fetch, because only it reports upload progress. Like the shared client,
 * a 401 on a request that carried a token ends the session.
 */
export const uploadCertificate = (
    file: File,
    onProgress: (fraction: number) => void,
    signal?: AbortSignal,
): Promise<Result<CertificateFile>> =>
    new Promise(resolve => {
        const request = new XMLHttpRequest();
        const token = sessionStore.token();
        request.open('POST', `${import.meta.env.VITE_API_URL ?? ''}/api/auth/doctor/certificates`);
        if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
        request.responseType = 'json';
        request.upload.onprogress = event => {
            if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
        };
        request.onload = () => {
            const body: unknown = request.response;
            if (request.status === 201 && body && typeof body === 'object' && 'id' in body) {
                resolve({ ok: true, data: body as CertificateFile });
                return;
            }
            if (request.status === 401 && token) {
                // The access token ran out: renewed for the next try, else the session is over.
                void renewSession().then(ok => {
                    if (ok) return;
                    sessionStore.clear();
                    window.location.assign(paths.login);
                });
            }
            const fields = fieldErrors(body);
            if (request.status === 413) resolve(failure(TOO_LARGE, 413));
            else resolve(failure(fields.file ?? errorMessage(body, UPLOAD_FAILED), request.status));
        };
        request.onerror = () => resolve(failure(UPLOAD_FAILED));
        request.onabort = () => resolve(failure(UPLOAD_FAILED));
        signal?.addEventListener('abort', () => request.abort(), { once: true });
        const form = new FormData();
        form.append('file', file, file.name);
        request.send(form);
    });

export const DOWNLOAD_FAILED = 'The file could not be downloaded.';

/**
 * GET /api/certificates/{id} needs the bearer token, which a plain link
 * cannot send: fetch it through the shared client as a blob, then hand the
 * browser an object URL to save under the stored name.
 */
export const downloadCertificate = async (fileId: string, fileName: string): Promise<string | null> => {
    try {
        const { data, error } = await api.GET('/api/certificates/{file_id}', {
            params: { path: { file_id: fileId } },
            parseAs: 'blob',
        });
        if (!(data instanceof Blob)) return errorMessage(error, DOWNLOAD_FAILED);
        const href = URL.createObjectURL(data);
        const link = document.createElement('a');
        link.href = href;
        link.download = fileName || 'certificate';
        link.rel = 'noopener';
        document.body.append(link);
        link.click();
        link.remove();
        // Give the browser time to start the download before the URL goes.
        window.setTimeout(() => URL.revokeObjectURL(href), 60_000);
        return null;
    } catch {
        return DOWNLOAD_FAILED;
    }
};

// ------------------------------------------------------------ account security

export type RenewedSession = components['schemas']['SessionRenewedResponse'];

const renew = async (
    call: () => Promise<{ data?: RenewedSession; error?: unknown; response: Response }>,
): Promise<Result<RenewedSession>> => {
    try {
        const { data, error, response } = await call();
        if (data) return { ok: true, data };
        return failure(errorMessage(error, SOMETHING_WENT_WRONG), response.status, fieldErrors(error));
    } catch {
        return failure(SOMETHING_WENT_WRONG);
    }
};

/** POST /api/auth/change-email: every other session is signed out; this one goes on with the new token. */
export const changeEmail = (email: string, currentPassword: string): Promise<Result<RenewedSession>> =>
    renew(() => api.POST('/api/auth/change-email', { body: { email, currentPassword } }));

/** POST /api/auth/change-password: as above. */
export const changePassword = (currentPassword: string, newPassword: string): Promise<Result<RenewedSession>> =>
    renew(() => api.POST('/api/auth/change-password', { body: { currentPassword, newPassword } }));

/** POST /api/auth/resend-verification: a new hospital's verification link, mailed again. */
export const resendVerification = async (): Promise<Result<{ message: string }>> => {
    try {
        const { data, error, response } = await api.POST('/api/auth/resend-verification');
        if (data) return { ok: true, data };
        return failure(errorMessage(error, SOMETHING_WENT_WRONG), response.status);
    } catch {
        return failure(SOMETHING_WENT_WRONG);
    }
};
