import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Toasts of the app shell (spec §2 "Other": bottom-right, 3000 ms; the start
 * side under right-to-left; on a phone at the top, under the navbar, off the
 * controls at the foot of the screen: styles.css). A toast pauses while hovered or focused, and the
 * region is a polite live region so screen readers announce it.
 * Callers pass already-translated text.
 */
export type ToastKind = 'success' | 'error' | 'info' | 'warning';
interface Toast {
    id: number;
    kind: ToastKind;
    text: string;
}
type Notify = (text: string, kind?: ToastKind) => void;

const ToastContext = createContext<Notify | null>(null);
/** Removes every toast on screen: a new attempt starts without the last one's messages. */
const ClearContext = createContext<() => void>(() => {});
const AUTO_CLOSE_MS = 3000;

const ToastItem = ({ toast, onClose }: { toast: Toast; onClose: (id: number) => void }) => {
    const { t } = useTranslation();
    const [paused, setPaused] = useState(false);
    const remaining = useRef(AUTO_CLOSE_MS);
    useEffect(() => {
        if (paused) return;
        const started = Date.now();
        const timer = window.setTimeout(() => onClose(toast.id), remaining.current);
        return () => {
            window.clearTimeout(timer);
            remaining.current -= Date.now() - started;
        };
    }, [paused, onClose, toast.id]);
    return (
        <div
            className={`toast toast-${toast.kind}`}
            role={toast.kind === 'error' ? 'alert' : 'status'}
            data-testid="toast"
            onMouseEnter={() => setPaused(true)}
            onMouseLeave={() => setPaused(false)}
            onFocus={() => setPaused(true)}
            onBlur={() => setPaused(false)}
        >
            <span>{toast.text}</span>
            <button type="button" className="toast-close" aria-label={t('Close')} onClick={() => onClose(toast.id)}>
                ×
            </button>
        </div>
    );
};

export const ToastProvider = ({ children }: { children: ReactNode }) => {
    const [toasts, setToasts] = useState<Toast[]>([]);
    const next = useRef(1);
    const close = useCallback((id: number) => setToasts(list => list.filter(toast => toast.id !== id)), []);
    const notify = useCallback<Notify>((text, kind = 'info') => {
        const id = next.current++;
        setToasts(list => [...list.slice(-4), { id, kind, text }]);
    }, []);
    const value = useMemo(() => notify, [notify]);
    const clear = useCallback(() => setToasts([]), []);
    return (
        <ToastContext.Provider value={value}>
            <ClearContext.Provider value={clear}>{children}</ClearContext.Provider>
            <div className="toast-region" aria-live="polite">
                {toasts.map(toast => (
                    <ToastItem key={toast.id} toast={toast} onClose={close} />
                ))}
            </div>
        </ToastContext.Provider>
    );
};

/** Clears the toasts of a previous attempt (call it when a form is submitted again). */
export const useClearToasts = (): (() => void) => useContext(ClearContext);

export const useToast = (): Notify => {
    const notify = useContext(ToastContext);
    if (!notify) throw new Error('useToast must be used within a ToastProvider');
    return notify;
};
