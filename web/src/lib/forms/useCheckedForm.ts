import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { FormErrors } from './fields';

/**
 * The state every checked form shares (the registration forms, both hospital
 * doctor forms):
 * - errors appear after the first submit, then follow the input live, so a
 *   message goes away as soon as the field is fixed;
 * - a refused submit moves focus to the first field in error (its message is
 *   tied to it with aria-describedby, so a screen reader reads both);
 * - the server's per-field messages (422, 409) go under their fields until
 *   edited.
 * Messages are English keys, translated at render in the form's namespace.
 * What differs between forms (fields, checks, texts) comes in as data.
 */
export const useCheckedForm = <Form extends object>(
    initial: Form | (() => Form),
    validate: (form: Form) => FormErrors<Extract<keyof Form, string>>,
    namespace: string,
) => {
    type Field = Extract<keyof Form, string>;
    const { t } = useTranslation(namespace);
    const [form, setForm] = useState<Form>(initial);
    const [submitted, setSubmitted] = useState(false);
    const [serverFields, setServerFields] = useState<Record<string, string>>({});
    const [focusRequest, setFocusRequest] = useState(0);
    const formRef = useRef<HTMLFormElement>(null);

    const clientErrors: FormErrors<Field> = submitted ? validate(form) : {};

    useEffect(() => {
        if (focusRequest) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    }, [focusRequest]);

    const set = useCallback(<K extends keyof Form>(field: K, value: Form[K]) => {
        setForm(current => ({ ...current, [field]: value }));
        setServerFields(current => {
            if (!(field in current)) return current;
            const { [field as string]: _edited, ...rest } = current;
            return rest;
        });
    }, []);

    /** The translated message under `field`, if any. */
    const error = (field: Field): string | undefined => {
        const message = clientErrors[field] ?? serverFields[field];
        return message ? t(message) : undefined;
    };

    /** On submit: true when the form may be sent; otherwise errors show and focus moves. */
    const check = (): boolean => {
        setSubmitted(true);
        if (Object.keys(validate(form)).length > 0) {
            setFocusRequest(count => count + 1);
            return false;
        }
        return true;
    };

    /** The server's field messages; focus goes to the first one the form shows. */
    const showServerFields = (fields: Record<string, string>) => {
        setServerFields(fields);
        if (Object.keys(fields).some(field => Object.hasOwn(form, field))) setFocusRequest(count => count + 1);
    };

    return { form, set, error, check, showServerFields, formRef };
};
