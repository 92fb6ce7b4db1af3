import type { ProfileForm } from '../model';

/** What every tab panel of the doctor's profile receives from the page. */
export interface PanelProps {
    form: ProfileForm;
    editing: boolean;
    /** The translated message under the field with this key (`name`, `certifications.0.date`), if any. */
    error: (key: string) => string | undefined;
    /** Applies an edit; `key` is the field edited, whose server message then goes away. */
    change: (key: string, edit: (form: ProfileForm) => ProfileForm) => void;
}

/** Replaces entry `index` of a list with `patch` applied. */
export const patchAt = <T,>(list: readonly T[], index: number, patch: Partial<T>): T[] =>
    list.map((entry, i) => (i === index ? { ...entry, ...patch } : entry));
