import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { useToast } from '@/components/ui/Toasts';
import type { SessionUser } from '@/lib/session/storage';
import { signup, type SignupBody } from '../api';
import type { FormErrors } from '@/lib/forms/fields';

/**
 * State and submission shared by the three registration forms.
 *
 * - Errors appear after the first submit and then follow the input live, so
 *   a message goes away as soon as the field is fixed.
 * - A failed submit moves focus to the first invalid field (the message is
 *   tied to it, so a screen reader reads both).
 * - Server failures (spec §8) become a toast and an inline alert; the
 *   server's per-field messages go under their fields until edited.
 * Messages are English keys, translated here at render time.
 */
export interface Failure {
    /** Translated text of the alert. */
    message: string;
    /** Translated server messages for fields the form does not show (e.g. the invitation). */
    details: string[];
}

interface Options<Form extends object> {
    initial: Form | (() => Form);
    validate: (form: Form) => FormErrors<Extract<keyof Form, string>>;
    /** The spec's fallback text when the server gave none ('Registration failed', ...). */
    fallback: string;
    /** Send the signed-in user's token (a hospital registering its doctor). */
    asSignedInUser?: boolean;
}

export const useRegistrationForm = <Form extends object>({
    initial,
    validate,
    fallback,
    asSignedInUser = false,
}: Options<Form>) => {
    type Field = Extract<keyof Form, string>;
    const { t } = useTranslation('register');
    const notify = useToast();
    const [form, setForm] = useState<Form>(initial);
    const [submitted, setSubmitted] = useState(false);
    const [serverFields, setServerFields] = useState<Record<string, string>>({});
    const [failure, setFailure] = useState<Failure | null>(null);
    const [busy, setBusy] = useState(false);
    const [focusRequest, setFocusRequest] = useState(0);
    const formRef = useRef<HTMLFormElement>(null);
    const failureRef = useRef<HTMLDivElement>(null);

    const clientErrors: FormErrors<Field> = submitted ? validate(form) : {};

    useEffect(() => {
        if (!focusRequest) return;
        formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    }, [focusRequest]);

    useEffect(() => {
        if (!failure) return;
        const still = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
        failureRef.current?.scrollIntoView({ block: 'nearest', behavior: still ? 'auto' : 'smooth' });
    }, [failure]);

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

    /**
     * The form's onSubmit: validates, then sends `build(form)` and hands a
     * successful answer to `onSuccess`. Resolves when everything is done.
     */
    const submitWith =
        (
            build: (form: Form) => SignupBody,
            onSuccess: (session: { token: string; user: SessionUser }) => void,
        ) =>
        async (event: FormEvent<HTMLFormElement>) => {
            event.preventDefault();
            if (busy) return;
            setSubmitted(true);
            if (Object.keys(validate(form)).length > 0) {
                setFocusRequest(count => count + 1);
                return;
            }
            setBusy(true);
            setFailure(null);
            const result = await signup(build(form), { asSignedInUser });
            setBusy(false);
            if (result.ok) {
                onSuccess({ token: result.token, user: result.user });
                return;
            }
            const message = t(result.message ?? fallback);
            const shown = new Set(Object.keys(form));
            setServerFields(result.fields);
            setFailure({
                message,
                details: Object.entries(result.fields)
                    .filter(([field, text]) => !shown.has(field) && text !== result.message)
                    .map(([, text]) => t(text)),
            });
            notify(message, 'error');
            if (Object.keys(result.fields).some(field => shown.has(field))) setFocusRequest(count => count + 1);
        };

    return { form, set, error, busy, failure, failureRef, formRef, submitWith, dismissFailure: () => setFailure(null) };
};
