/**
 * The radiologist's studies (cara.imaging): DICOM files, folders and zips sent
 * to the tenant's PACS through POST /api/imaging/studies (multipart, with
 * upload progress, hence XMLHttpRequest), and the consultation's studies found
 * again with GET /api/imaging/studies.
 */
import { paths } from '@/config/paths';
import { api, errorMessage } from '@/lib/api/client';
import { NETWORK_FAILED, SOMETHING_WENT_WRONG } from '@/lib/api/messages';
import { failure, type Result } from '@/lib/api/result';
import type { components } from '@/lib/api/schema';
import { renewSession, sessionStore } from '@/lib/session/storage';

export type Study = components['schemas']['StudyOut'];
export type StudyUpload = components['schemas']['StudyUploadOut'];

export const UPLOAD_FAILED = 'The studies could not be uploaded. Please try again.';

export const uploadStudies = (
    consultationId: string,
    files: readonly File[],
    onProgress: (fraction: number) => void,
): Promise<Result<StudyUpload>> =>
    new Promise(resolve => {
        const request = new XMLHttpRequest();
        const token = sessionStore.token();
        request.open('POST', `${import.meta.env.VITE_API_URL ?? ''}/api/imaging/studies`);
        if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
        request.responseType = 'json';
        request.upload.onprogress = event => {
            if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
        };
        request.onload = () => {
            const body: unknown = request.response;
            if (request.status === 201 && body && typeof body === 'object' && 'studies' in body) {
                resolve({ ok: true, data: body as StudyUpload });
                return;
            }
            if (request.status === 401 && token) {
                void renewSession().then(ok => {
                    if (ok) return;
                    sessionStore.clear();
                    window.location.assign(paths.login);
                });
            }
            resolve(failure(errorMessage(body, UPLOAD_FAILED), request.status));
        };
        request.onerror = () => resolve(failure(UPLOAD_FAILED));
        request.onabort = () => resolve(failure(UPLOAD_FAILED));
        const form = new FormData();
        form.append('consultationId', consultationId);
        // A file from a dropped folder keeps its path in the folder, so a refusal names it.
        for (const file of files) form.append('files', file, file.webkitRelativePath || file.name);
        request.send(form);
    });

export const consultationStudies = async (consultationId: string): Promise<Result<Study[]>> => {
    try {
        const { data, error, response } = await api.GET('/api/imaging/studies', {
            params: { query: { consultationId } },
        });
        if (response.ok && data) return { ok: true, data: data.studies };
        return failure(errorMessage(error, SOMETHING_WENT_WRONG), response.status);
    } catch {
        return failure(NETWORK_FAILED);
    }
};

/** Every file under the dropped items, folders walked (the browser's entries API). */
export const droppedFiles = async (transfer: DataTransfer): Promise<File[]> => {
    const entries = Array.from(transfer.items)
        .map(item => (item.kind === 'file' ? item.webkitGetAsEntry() : null))
        .filter((entry): entry is FileSystemEntry => entry !== null);
    if (!entries.length) return Array.from(transfer.files);
    const out: File[] = [];
    const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
        if (entry.isFile) {
            const file = await new Promise<File>((done, fail) => (entry as FileSystemFileEntry).file(done, fail));
            out.push(prefix ? new File([file], `${prefix}${file.name}`, { type: file.type }) : file);
            return;
        }
        const reader = (entry as FileSystemDirectoryEntry).createReader();
        for (;;) {
            const batch = await new Promise<FileSystemEntry[]>((done, fail) => reader.readEntries(done, fail));
            if (!batch.length) break;
            for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
        }
    };
    for (const entry of entries) await walk(entry, '');
    return out;
};
