import type { Specialty } from '@/config/paths';
import type { components } from '@/lib/api/schema';
import { DOCTOR_FORMS, validateDoctorFields } from '@/lib/forms/doctor';
import { blank, isSpecialty } from '@/lib/forms/fields';
import type { SessionUser } from '@/lib/session/storage';

/**
 * The doctor profile form (spec §2 "Doctor Profile page", §3 "User",
 * "Availability entry"): what the page edits, how it is read from the stored
 * user and turned into the PUT /api/auth/doctor/profile body, and the
 * client-side checks. Those mirror cara.profiles.service rule for rule, with
 * the same texts and the same field keys (`certifications.0.name`,
 * `workHistory.1.endDate`, `availability.2.endTime`), so a message from
 * either side lands under the same field. Messages are English keys.
 */
export type ProfileBody = components['schemas']['ProfileUpdate'];

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_ENTRIES = 50;

export interface CertificationForm {
    /** Client-side identity for React keys; never sent. */
    key: string;
    name: string;
    issuer: string;
    /** YYYY-MM-DD or '' */
    date: string;
    fileId: string | null;
    fileName: string | null;
    fileSize: number | null;
}

export interface WorkForm {
    key: string;
    hospital: string;
    position: string;
    startDate: string;
    endDate: string;
    description: string;
}

export interface AvailabilityForm {
    day: Weekday;
    startTime: string;
    endTime: string;
    isAvailable: boolean;
}

export interface ProfileForm {
    name: string;
    email: string;
    phoneNumber: string;
    specialty: Specialty;
    licenseNumber: string;
    /** As typed in the number input; parsed on save. */
    experience: string;
    certifications: CertificationForm[];
    workHistory: WorkForm[];
    availability: AvailabilityForm[];
}

export type Errors = Record<string, string>;

let counter = 0;
export const newKey = (): string => `entry-${Date.now().toString(36)}-${(counter += 1)}`;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (value: unknown): Record<string, unknown> =>
    value && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** Spec §3/§9: Monday to Friday 09:00-17:00 available; the weekend 09:00-17:00 not. */
export const defaultAvailability = (): AvailabilityForm[] =>
    WEEKDAYS.map(day => ({
        day,
        startTime: '09:00',
        endTime: '17:00',
        isAvailable: day !== 'Saturday' && day !== 'Sunday',
    }));

const readAvailability = (stored: unknown[] | null | undefined): AvailabilityForm[] => {
    const days = defaultAvailability();
    for (const raw of stored ?? []) {
        const entry = record(raw);
        const name = text(entry.day).trim().toLowerCase();
        const index = WEEKDAYS.findIndex(day => day.toLowerCase() === name);
        if (index < 0) continue;
        days[index] = {
            day: WEEKDAYS[index],
            startTime: text(entry.startTime) || days[index].startTime,
            endTime: text(entry.endTime) || days[index].endTime,
            isAvailable: entry.isAvailable === true,
        };
    }
    return days;
};

export const emptyCertification = (): CertificationForm => ({
    key: newKey(),
    name: '',
    issuer: '',
    date: '',
    fileId: null,
    fileName: null,
    fileSize: null,
});

export const emptyWork = (): WorkForm => ({
    key: newKey(),
    hospital: '',
    position: '',
    startDate: '',
    endDate: '',
    description: '',
});

/** The form as the stored user holds it (lists read defensively: they are untyped JSON). */
export const formFromUser = (user: SessionUser): ProfileForm => ({
    name: user.name ?? '',
    email: user.email ?? '',
    phoneNumber: user.phoneNumber ?? '',
    specialty: isSpecialty(user.specialty) ? user.specialty : 'Radiologist',
    licenseNumber: user.licenseNumber ?? '',
    experience: String(user.experience ?? 0),
    certifications: (user.certifications ?? []).map(raw => {
        const entry = record(raw);
        const fileId = text(entry.fileId) || null;
        return {
            key: newKey(),
            name: text(entry.name),
            issuer: text(entry.issuer),
            date: text(entry.date),
            fileId,
            fileName: fileId ? text(entry.fileName) || null : null,
            fileSize: fileId && typeof entry.fileSize === 'number' ? entry.fileSize : null,
        };
    }),
    workHistory: (user.workHistory ?? []).map(raw => {
        const entry = record(raw);
        return {
            key: newKey(),
            hospital: text(entry.hospital),
            position: text(entry.position),
            startDate: text(entry.startDate),
            endDate: text(entry.endDate),
            description: text(entry.description),
        };
    }),
    availability: readAvailability(user.availability),
});

/** The whole profile: the server replaces each sent field, so every list is sent complete. */
export const bodyFromForm = (form: ProfileForm): ProfileBody => ({
    name: form.name.trim(),
    email: form.email.trim(),
    phoneNumber: form.phoneNumber.trim(),
    specialty: form.specialty,
    licenseNumber: form.licenseNumber.trim(),
    experience: Number(form.experience),
    certifications: form.certifications.map(entry => ({
        name: entry.name.trim(),
        issuer: entry.issuer.trim(),
        date: entry.date,
        fileId: entry.fileId,
    })),
    workHistory: form.workHistory.map(entry => ({
        hospital: entry.hospital.trim(),
        position: entry.position.trim(),
        startDate: entry.startDate,
        endDate: entry.endDate,
        description: entry.description.trim(),
    })),
    availability: form.availability.map(({ day, startTime, endTime, isAvailable }) => ({
        day,
        startTime,
        endTime,
        isAvailable,
    })),
});

// ------------------------------------------------------------------ checks

// The same patterns as cara.profiles.service (the doctor's own fields are
// checked by lib/forms/doctor, with the profile's rules).
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Today as YYYY-MM-DD in the reader's time zone (the date inputs' `max`). */
export const today = (): string => {
    const now = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
};

const validDate = (value: string): boolean => {
    if (!DATE.test(value)) return false;
    const parsed = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
};

/** The server's _check_date: `label` is 'Date obtained', 'Start date' or 'End date'. */
const dateError = (value: string, required: boolean, label: string): string | undefined => {
    if (blank(value)) return required ? `${label} is required` : undefined;
    if (!validDate(value)) return `${label} must be a date (YYYY-MM-DD)`;
    if (value > today()) return `${label} cannot be in the future`;
    return undefined;
};

export const validateProfile = (form: ProfileForm): Errors => {
    const errors: Errors = {};
    const add = (key: string, message: string | undefined) => {
        if (message && !(key in errors)) errors[key] = message;
    };

    // The profile has no country, state or password: its rules leave them unchecked.
    const personal = validateDoctorFields({ ...form, country: '', state: '', password: '' }, DOCTOR_FORMS.profile);
    for (const [key, message] of Object.entries(personal)) add(key, message);

    form.certifications.forEach((entry, i) => {
        if (blank(entry.name)) add(`certifications.${i}.name`, 'Certification name is required');
        add(`certifications.${i}.date`, dateError(entry.date, false, 'Date obtained'));
    });

    form.workHistory.forEach((entry, i) => {
        if (blank(entry.hospital)) add(`workHistory.${i}.hospital`, 'Hospital/Organization is required');
        if (blank(entry.position)) add(`workHistory.${i}.position`, 'Position is required');
        const start = dateError(entry.startDate, true, 'Start date');
        const end = dateError(entry.endDate, false, 'End date');
        add(`workHistory.${i}.startDate`, start);
        add(`workHistory.${i}.endDate`, end);
        if (!start && !end && entry.endDate && entry.endDate < entry.startDate)
            add(`workHistory.${i}.endDate`, 'End date cannot be before start date');
    });

    form.availability.forEach((entry, i) => {
        if (!entry.isAvailable) return; // the times of an unavailable day are kept, not used
        const startOk = TIME.test(entry.startTime);
        const endOk = TIME.test(entry.endTime);
        if (!startOk) add(`availability.${i}.startTime`, 'Time must be HH:MM');
        if (!endOk) add(`availability.${i}.endTime`, 'Time must be HH:MM');
        if (startOk && endOk && entry.endTime <= entry.startTime)
            add(`availability.${i}.endTime`, 'End time must be after start time');
    });
    return errors;
};

// -------------------------------------------------------------- tabs

export const TABS = ['personal', 'certifications', 'work', 'availability'] as const;
export type TabId = (typeof TABS)[number];

/** Which tab shows the field behind an error key. */
export const tabOf = (key: string): TabId => {
    if (key.startsWith('certifications')) return 'certifications';
    if (key.startsWith('workHistory')) return 'work';
    if (key.startsWith('availability')) return 'availability';
    return 'personal';
};

const PERSONAL_ORDER = ['name', 'email', 'phoneNumber', 'specialty', 'licenseNumber', 'experience'];

/** Sorts error keys the way the page shows them: tab order, then entry, then field. */
const rank = (key: string): [number, number, number] => {
    const tab = TABS.indexOf(tabOf(key));
    const [, index] = key.split('.');
    if (tab === 0) {
        const at = PERSONAL_ORDER.indexOf(key);
        return [tab, 0, at < 0 ? PERSONAL_ORDER.length : at];
    }
    return [tab, Number(index) || 0, 0];
};

export const firstErrorKey = (errors: Errors): string | undefined =>
    Object.keys(errors).sort((a, b) => {
        const [ra, rb] = [rank(a), rank(b)];
        return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2];
    })[0];

/** Entry errors keep their indices meaningful after an entry is removed. */
export const withoutEntry = (errors: Errors, list: 'certifications' | 'workHistory', removed: number): Errors => {
    const next: Errors = {};
    for (const [key, message] of Object.entries(errors)) {
        const [head, index, ...rest] = key.split('.');
        if (head !== list) {
            next[key] = message;
            continue;
        }
        const at = Number(index);
        if (at === removed) continue;
        next[[head, at > removed ? at - 1 : at, ...rest].join('.')] = message;
    }
    return next;
};
