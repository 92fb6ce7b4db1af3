import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * An accessible dialog: role=dialog + aria-modal, titled by its heading,
 * focus moved inside on open, Tab kept inside, Escape closes (unless the
 * caller is busy), and focus returned to where it was when it closes.
 */
const FOCUSABLE =
    'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export const Modal = ({
    title,
    onClose,
    children,
    footer,
    wide = false,
    closable = true,
}: {
    title: string;
    onClose: () => void;
    children: ReactNode;
    footer?: ReactNode;
    wide?: boolean;
    /** False while a request runs: the dialog must stay until it answers. */
    closable?: boolean;
}) => {
    const titleId = useId();
    const panel = useRef<HTMLDivElement>(null);
    const close = useRef(onClose);
    close.current = onClose;
    const canClose = useRef(closable);
    canClose.current = closable;

    useEffect(() => {
        const before = document.activeElement as HTMLElement | null;
        const first = panel.current?.querySelector<HTMLElement>(FOCUSABLE);
        (first ?? panel.current)?.focus();
        const onKey = (event: KeyboardEvent) => {
            if (event.key === 'Escape' && canClose.current) {
                event.stopPropagation();
                close.current();
                return;
            }
            if (event.key !== 'Tab' || !panel.current) return;
            const items = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
            if (!items.length) {
                event.preventDefault();
                return;
            }
            const [head, tail] = [items[0], items[items.length - 1]];
            if (event.shiftKey && document.activeElement === head) {
                event.preventDefault();
                tail.focus();
            } else if (!event.shiftKey && document.activeElement === tail) {
                event.preventDefault();
                head.focus();
            }
        };
        document.addEventListener('keydown', onKey);
        return () => {
            document.removeEventListener('keydown', onKey);
            before?.focus?.();
        };
    }, []);

    return (
        <div
            className="sub-modal-backdrop"
            onMouseDown={event => {
                if (event.target === event.currentTarget && canClose.current) close.current();
            }}
        >
            <div
                ref={panel}
                className={`sub-modal${wide ? ' sub-modal-wide' : ''}`}
                role="dialog"
                aria-modal="true"
                aria-labelledby={titleId}
                tabIndex={-1}
            >
                <h2 id={titleId} className="sub-modal-title">
                    {title}
                </h2>
                <div className="sub-modal-body">{children}</div>
                {footer && <div className="sub-modal-footer">{footer}</div>}
            </div>
        </div>
    );
};
