import type { ButtonHTMLAttributes } from 'react';

import { Spinner } from './Spinner';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
    variant?: 'primary' | 'secondary' | 'ghost' | 'danger';
    busy?: boolean;
}

/** A button; `busy` disables it and shows a spinner next to the label. */
export const Button = ({ variant = 'primary', busy = false, className, children, disabled, ...rest }: ButtonProps) => (
    <button
        type="button"
        className={`btn btn-${variant}${className ? ` ${className}` : ''}`}
        disabled={disabled || busy}
        aria-busy={busy || undefined}
        {...rest}
    >
        {busy && <Spinner />}
        {children}
    </button>
);
