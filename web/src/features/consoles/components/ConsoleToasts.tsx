/**
 * The live console's toasts (spec §2): top corner (inline-end, so the start
 * side under right-to-left), auto-close after 5000 ms, paused while hovered
 * or focused and while the window is in the background (a message is not
 * lost behind another window), and Alt+T moves focus to them. The app
 * shell's own toasts (bottom, 3000 ms) stay for the rest of the app.
 * Callers pass already-translated text.
 */
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type ConsoleToastKind = 'info' | 'success' | 'warning' | 'error';
type Notify = (text: string, kind?: ConsoleToastKind) => void;

interface Toast {
    id: number;
    kind: ConsoleToastKind;
    text: string;
}

export const CONSOLE_TOAST_MS = 5000;
const Context = createContext<Notify>(() => undefined);

const useWindowFocused = (): boolean => {
    const [focused, setFocused] = useState(() => (typeof document === 'undefined' ? true : document.hasFocus()));
    useEffect(() => {
        const on = () => setFocused(true);
        const off = () => setFocused(false);
        window.addEventListener('focus', on);
        window.addEventListener('blur', off);
        return () => {
            window.removeEventListener('focus', on);
            window.removeEventListener('blur', off);
        };
    }, []);
    return focused;
};

const ToastItem = ({ toast, paused, onClose }: { toast: Toast; paused: boolean; onClose: (id: number) => void }) => {
    const { t } = useTranslation('consoles');
    const [held, setHeld] = useState(false);
    const remaining = useRef(CONSOLE_TOAST_MS);
    useEffect(() => {
        if (paused || held) return;
        const started = Date.now();
        const timer = window.setTimeout(() => onClose(toast.id), remaining.current);
        return () => {
            window.clearTimeout(timer);
            remaining.current -= Date.now() - started;
        };
    }, [paused, held, onClose, toast.id]);
    return (
        <div
            className={`console-toast console-toast-${toast.kind}`}
            role={toast.kind === 'error' ? 'alert' : 'status'}
            data-testid="console-toast"
            data-kind={toast.kind}
            onMouseEnter={() => setHeld(true)}
            onMouseLeave={() => setHeld(false)}
            onFocus={() => setHeld(true)}
            onBlur={() => setHeld(false)}
        >
            <span>{toast.text}</span>
            <button
                type="button"
                className="console-toast-close"
                aria-label={t('Close')}
                onClick={() => onClose(toast.id)}
            >
                ×
            </button>
        </div>
    );
};

export const ConsoleToasts = ({ children }: { children: ReactNode }) => {
    const { t } = useTranslation('consoles');
    const [toasts, setToasts] = useState<Toast[]>([]);
    const next = useRef(1);
    const region = useRef<HTMLDivElement>(null);
    const focused = useWindowFocused();
    const close = useCallback((id: number) => setToasts(list => list.filter(toast => toast.id !== id)), []);
    const notify = useCallback<Notify>((text, kind = 'info') => {
        const id = next.current++;
        setToasts(list => [...list.slice(-4), { id, kind, text }]);
    }, []);

    useEffect(() => {
        const onKey = (event: KeyboardEvent) => {
            if (event.altKey && !event.ctrlKey && !event.metaKey && event.code === 'KeyT') {
                event.preventDefault();
                region.current?.focus();
            }
        };
        window.addEventListener('keydown', onKey);
        return () => window.removeEventListener('keydown', onKey);
    }, []);

    return (
        <Context.Provider value={notify}>
            {children}
            <div
                ref={region}
                className="console-toasts"
                role="region"
                aria-label={t('Notifications (Alt+T)')}
                aria-live="polite"
                tabIndex={-1}
            >
                {toasts.map(toast => (
                    <ToastItem key={toast.id} toast={toast} paused={!focused} onClose={close} />
                ))}
            </div>
        </Context.Provider>
    );
};

export const useConsoleToast = (): Notify => useContext(Context);
