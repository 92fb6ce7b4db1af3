import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { useClearToasts } from '@/components/ui/Toasts';
import type { FormErrors } from '@/lib/forms/fields';
import { useCheckedForm } from '@/lib/forms/useCheckedForm';
import type { SessionUser } from '@/lib/session/storage';
import { signup, type SignupBody } from '../api';

/**
 * Submission shared by the three registration forms, on top of the checked
 * form state of `lib/forms` (errors after the first submit, focus on the
 * first field in error, the server's field messages until edited). Server
 * failures (spec §8) become a toast and an inline alert; per-field messages
 * for fields the form does not show join the alert. Messages are English
 * keys, translated here at render time.
 */
export interface Failure {
    /** Translated text of the alert. */
    message: string;
    /** Translated server messages for fields the form does not show (e.g. the invitation). */
    details: string[];
}

/** The fields of `Form` whose values are text. */
export type TextKey<Form> = Extract<keyof Form, string> &
    { [K in keyof Form]: Form[K] extends string ? K : never }[keyof Form];

/** The fields of `Form` whose values are yes or no. */
export type CheckKey<Form> = Extract<keyof Form, string> &
    { [K in keyof Form]: Form[K] extends boolean ? K : never }[keyof Form];

/** What a checkbox of a registration form is given (`checkbox(field)`). */
export interface CheckBinding {
    checked: boolean;
    onChange: (checked: boolean) => void;
    error?: string;
}

/** What a text field or a select of a registration form is given (`text(field)`). */
export interface TextBinding {
    name: string;
    value: string;
    onChange: (event: { target: { value: string } }) => void;
    error?: string;
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
    const { t } = useTranslation('register');
    const clearToasts = useClearToasts();
    const { form, set, error, check, showServerFields, formRef } = useCheckedForm(initial, validate, 'register');
    const [failure, setFailure] = useState<Failure | null>(null);
    const [busy, setBusy] = useState(false);
    /** The address a sign-up link was mailed to: the page shows "Check your email" instead of the form. */
    const [linkSentTo, setLinkSentTo] = useState<string | null>(null);
    const failureRef = useRef<HTMLDivElement>(null);

    useEffect(() => {
        if (!failure) return;
        const still = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
        failureRef.current?.scrollIntoView({ block: 'nearest', behavior: still ? 'auto' : 'smooth' });
    }, [failure]);

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
            if (busy || !check()) return;
            setBusy(true);
            setFailure(null);
            clearToasts();
            const result = await signup(build(form), { asSignedInUser });
            setBusy(false);
            if (result.ok) {
                if (result.data.kind === 'pending') {
                    setLinkSentTo(result.data.email);
                    window.scrollTo({ top: 0 });
                    return;
                }
                onSuccess({ token: result.data.token, user: result.data.user });
                return;
            }
            // One message per failure, where the user looks: under the field it is about
            // (e.g. a registered email), else in the form's alert; never a toast as well.
            const message = t(result.message || fallback);
            const shown = new Set(Object.keys(form));
            showServerFields(result.fields);
            const underField = Object.entries(result.fields).some(
                ([field, text]) => shown.has(field) && text === result.message,
            );
            const details = Object.entries(result.fields)
                .filter(([field, text]) => !shown.has(field) && text !== result.message)
                .map(([, text]) => t(text));
            setFailure(underField && !details.length ? null : { message: underField ? '' : message, details });
        };

    /** The props of a field that holds text (an input or a select): its name, value, change and message. */
    const text = <K extends TextKey<Form>>(field: K): TextBinding => ({
        name: field,
        value: form[field] as string,
        onChange: event => set(field, event.target.value as Form[K]),
        error: error(field),
    });

    /** The props of a yes-or-no field: whether it is ticked, its change and message. */
    const checkbox = <K extends CheckKey<Form>>(field: K): CheckBinding => ({
        checked: form[field] as boolean,
        onChange: checked => set(field, checked as Form[K]),
        error: error(field),
    });

    return {
        form,
        set,
        error,
        text,
        checkbox,
        busy,
        failure,
        failureRef,
        linkSentTo,
        startAgain: () => setLinkSentTo(null),
        formRef,
        submitWith,
        dismissFailure: () => setFailure(null),
    };
};
