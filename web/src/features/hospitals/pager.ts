/**
 * Manage Doctors' pages, without React: the server pages the list (keyset),
 * this keeps the cursors that led to the page on screen so "Previous" goes
 * back and a reload after a change stays on the same page. A newer request
 * (new filters, another page) wins over an older answer still on its way.
 * At most one page (50 rows) is ever rendered, so the table never needs
 * virtualising however many doctors the hospital has.
 */
import type { Result } from '@/lib/api/result';

export type DoctorSort = 'name' | '-name' | 'createdAt' | '-createdAt';

export interface DoctorFilters {
    q?: string;
    specialty?: string;
    state?: string;
    isActive?: boolean;
    sort?: DoctorSort;
}

export interface Page<T> {
    items: T[];
    nextCursor?: string | null;
}

export type FetchPage<T> = (filters: DoctorFilters, cursor: string | null) => Promise<Result<Page<T>>>;

export type PagerState<T> =
    | { status: 'loading'; page: number; items: readonly T[] }
    | { status: 'failed'; page: number; message: string }
    | { status: 'loaded'; page: number; items: readonly T[]; hasNext: boolean };

export class Pager<T> {
    private filters: DoctorFilters = {};
    /** The cursor each page on the way here was fetched with (null: the first page). */
    private cursors: (string | null)[] = [null];
    private next: string | null = null;
    private ticket = 0;
    private current: PagerState<T> = { status: 'loading', page: 1, items: [] };
    private readonly listeners = new Set<() => void>();

    constructor(private readonly fetchPage: FetchPage<T>) {}

    state = (): PagerState<T> => this.current;

    subscribe = (listener: () => void): (() => void) => {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    };

    /** New search, filters or order: back to the first page. */
    setFilters(filters: DoctorFilters): Promise<void> {
        this.filters = { ...filters };
        this.cursors = [null];
        return this.load();
    }

    nextPage(): Promise<void> {
        if (this.current.status !== 'loaded' || !this.next) return Promise.resolve();
        this.cursors = [...this.cursors, this.next];
        return this.load();
    }

    previousPage(): Promise<void> {
        if (this.cursors.length < 2) return Promise.resolve();
        this.cursors = this.cursors.slice(0, -1);
        return this.load();
    }

    /** The page on screen again (after a change); an emptied last page steps back one. */
    async reload(): Promise<void> {
        await this.load();
        if (this.current.status === 'loaded' && this.current.items.length === 0 && this.cursors.length > 1) {
            await this.previousPage();
        }
    }

    /** A row changed here (e.g. its status): shown at once, without asking for the page again. */
    replace(matches: (item: T) => boolean, item: T): void {
        if (this.current.status !== 'loaded') return;
        this.emit({ ...this.current, items: this.current.items.map(old => (matches(old) ? item : old)) });
    }

    private async load(): Promise<void> {
        const ticket = ++this.ticket;
        const page = this.cursors.length;
        const shown = this.current.status === 'failed' ? [] : this.current.items;
        this.emit({ status: 'loading', page, items: shown });
        const result = await this.fetchPage(this.filters, this.cursors[page - 1] ?? null);
        if (ticket !== this.ticket) return; // a newer request won
        if (!result.ok) {
            this.emit({ status: 'failed', page, message: result.message });
            return;
        }
        this.next = result.data.nextCursor ?? null;
        this.emit({ status: 'loaded', page, items: result.data.items, hasNext: this.next !== null });
    }

    private emit(state: PagerState<T>): void {
        this.current = state;
        for (const listener of this.listeners) listener();
    }
}
