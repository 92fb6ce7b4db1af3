import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/**
 * Form controls with a visible label and their error tied to the control
 * (aria-invalid + aria-describedby), so the message is announced and the
 * browser tests can read it by the field's label.
 */
interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
    label: string;
    error?: string;
    hint?: ReactNode;
}

export const TextField = ({ label, error, hint, id, ...input }: FieldProps) => {
    const generated = useId();
    const inputId = id ?? generated;
    const errorId = `${inputId}-error`;
    return (
        <div className="field">
            <label htmlFor={inputId}>{label}</label>
            <input
                id={inputId}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? errorId : undefined}
                {...input}
            />
            {hint && !error && <small className="field-hint">{hint}</small>}
            {error && (
                <p className="field-error" id={errorId}>
                    {error}
                </p>
            )}
        </div>
    );
};

interface SelectProps extends SelectHTMLAttributes<HTMLSelectElement> {
    label: string;
    error?: string;
    options: readonly { value: string; label: string }[];
    placeholder?: string;
}

export const SelectField = ({ label, error, options, placeholder, id, ...select }: SelectProps) => {
    const generated = useId();
    const selectId = id ?? generated;
    const errorId = `${selectId}-error`;
    return (
        <div className="field">
            <label htmlFor={selectId}>{label}</label>
            <select
                id={selectId}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? errorId : undefined}
                {...select}
            >
                {placeholder !== undefined && <option value="">{placeholder}</option>}
                {options.map(option => (
                    <option key={option.value} value={option.value}>
                        {option.label}
                    </option>
                ))}
            </select>
            {error && (
                <p className="field-error" id={errorId}>
                    {error}
                </p>
            )}
        </div>
    );
};

interface CheckboxProps extends InputHTMLAttributes<HTMLInputElement> {
    label: ReactNode;
    error?: string;
}

export const Checkbox = ({ label, error, id, ...input }: CheckboxProps) => {
    const generated = useId();
    const inputId = id ?? generated;
    const errorId = `${inputId}-error`;
    return (
        <div className="field field-checkbox">
            <input
                type="checkbox"
                id={inputId}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? errorId : undefined}
                {...input}
            />
            <label htmlFor={inputId}>{label}</label>
            {error && (
                <p className="field-error" id={errorId}>
                    {error}
                </p>
            )}
        </div>
    );
};

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
    label: string;
    error?: string;
}

/** A labelled textarea with its error tied to it, like TextField. */
export const TextAreaField = ({ label, error, id, ...textarea }: TextAreaProps) => {
    const generated = useId();
    const inputId = id ?? generated;
    const errorId = `${inputId}-error`;
    return (
        <div className="field">
            <label htmlFor={inputId}>{label}</label>
            <textarea
                id={inputId}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? errorId : undefined}
                {...textarea}
            />
            {error && (
                <p className="field-error" id={errorId}>
                    {error}
                </p>
            )}
        </div>
    );
};
