/**
 * A level (0..1) that changes many times a second (microphone and voice
 * meters). Components subscribe and write it to a CSS variable themselves, so
 * a meter moving 40 times a second never re-renders the console.
 */
export interface Level {
    get(): number;
    set(value: number): void;
    subscribe(listener: (value: number) => void): () => void;
}

export const createLevel = (): Level => {
    let value = 0;
    const listeners = new Set<(value: number) => void>();
    return {
        get: () => value,
        set(next) {
            if (next === value) return;
            value = next;
            listeners.forEach(listener => listener(next));
        },
        subscribe(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
    };
};
