import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/**
 * Form controls with a visible label and their error tied to the control
 * (aria-invalid + aria-describedby), so the message is announced and the
 * browser tests can read it by the field's label.
 */

/** The control's id (given or generated) and the attributes that tie its error to it. */
const useControl = (id: string | undefined, error: string | undefined) => {
    const generated = useId();
    const controlId = id ?? generated;
    const errorId = `${controlId}-error`;
    return {
        errorId,
        control: {
            id: controlId,
            'aria-invalid': error ? true : undefined,
            'aria-describedby': error ? errorId : undefined,
        },
    };
};

const FieldError = ({ id, error }: { id: string; error?: string }) =>
    error ? (
        <p className="field-error" id={id}>
            {error}
        </p>
    ) : null;

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
    label: string;
    error?: string;
    hint?: ReactNode;
}

export const TextField = ({ label, error, hint, id, ...input }: FieldProps) => {
    const { errorId, control } = useControl(id, error);
    return (
        <div className="field">
            <label htmlFor={control.id}>{label}</label>
            <input {...control} {...input} />
            {hint && !error && <small className="field-hint">{hint}</small>}
            <FieldError id={errorId} error={error} />
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
    const { errorId, control } = useControl(id, error);
    return (
        <div className="field">
            <label htmlFor={control.id}>{label}</label>
            <select {...control} {...select}>
                {placeholder !== undefined && <option value="">{placeholder}</option>}
                {options.map(option => (
                    <option key={option.value} value={option.value}>
                        {option.label}
                    </option>
                ))}
            </select>
            <FieldError id={errorId} error={error} />
        </div>
    );
};

interface CheckboxProps extends InputHTMLAttributes<HTMLInputElement> {
    label: ReactNode;
    error?: string;
}

export const Checkbox = ({ label, error, id, ...input }: CheckboxProps) => {
    const { errorId, control } = useControl(id, error);
    return (
        <div className="field field-checkbox">
            <input type="checkbox" {...control} {...input} />
            <label htmlFor={control.id}>{label}</label>
            <FieldError id={errorId} error={error} />
        </div>
    );
};

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
    label: string;
    error?: string;
}

/** A labelled textarea with its error tied to it, like TextField. */
export const TextAreaField = ({ label, error, id, ...textarea }: TextAreaProps) => {
    const { errorId, control } = useControl(id, error);
    return (
        <div className="field">
            <label htmlFor={control.id}>{label}</label>
            <textarea {...control} {...textarea} />
            <FieldError id={errorId} error={error} />
        </div>
    );
};
