import { describe, expect, it } from 'vitest';

import { failure, type Result } from '@/lib/api/result';
import { Pager, type DoctorFilters, type Page } from './pager';

type Row = { id: string };
type Call = { filters: DoctorFilters; cursor: string | null; answer: (result: Result<Page<Row>>) => void };

/** A fetch whose answers the test gives, in any order. */
const server = () => {
    const calls: Call[] = [];
    const fetchPage = (filters: DoctorFilters, cursor: string | null) =>
        new Promise<Result<Page<Row>>>(resolve => calls.push({ filters, cursor, answer: resolve }));
    return { calls, fetchPage };
};

const page = (ids: string[], nextCursor: string | null = null): Result<Page<Row>> => ({
    ok: true,
    data: { items: ids.map(id => ({ id })), nextCursor },
});

const settle = () => new Promise(resolve => setTimeout(resolve, 0));

describe('Pager', () => {
    it('follows the cursors forward and back', async () => {
        const { calls, fetchPage } = server();
        const pager = new Pager<Row>(fetchPage);
        void pager.setFilters({ q: 'ama' });
        expect(pager.state()).toMatchObject({ status: 'loading', page: 1 });
        calls[0].answer(page(['a', 'b'], 'c1'));
        await settle();
        expect(pager.state()).toEqual({ status: 'loaded', page: 1, items: [{ id: 'a' }, { id: 'b' }], hasNext: true });

        void pager.nextPage();
        expect(calls[1]).toMatchObject({ filters: { q: 'ama' }, cursor: 'c1' });
        // The rows on screen stay while the next page comes.
        expect(pager.state()).toMatchObject({ status: 'loading', page: 2, items: [{ id: 'a' }, { id: 'b' }] });
        calls[1].answer(page(['c']));
        await settle();
        expect(pager.state()).toEqual({ status: 'loaded', page: 2, items: [{ id: 'c' }], hasNext: false });

        await pager.nextPage(); // no next page: nothing asked
        expect(calls).toHaveLength(2);

        void pager.previousPage();
        expect(calls[2].cursor).toBeNull();
        calls[2].answer(page(['a', 'b'], 'c1'));
        await settle();
        expect(pager.state()).toMatchObject({ status: 'loaded', page: 1, hasNext: true });
        await pager.previousPage(); // already on the first page
        expect(calls).toHaveLength(3);
    });

    it('drops an older answer that arrives after a newer request', async () => {
        const { calls, fetchPage } = server();
        const pager = new Pager<Row>(fetchPage);
        void pager.setFilters({ q: 'a' });
        void pager.setFilters({ q: 'am' });
        calls[1].answer(page(['ama']));
        await settle();
        calls[0].answer(page(['abena', 'adwoa']));
        await settle();
        expect(pager.state()).toEqual({ status: 'loaded', page: 1, items: [{ id: 'ama' }], hasNext: false });
    });

    it('new filters start again from the first page', async () => {
        const { calls, fetchPage } = server();
        const pager = new Pager<Row>(fetchPage);
        void pager.setFilters({});
        calls[0].answer(page(['a'], 'c1'));
        await settle();
        void pager.nextPage();
        calls[1].answer(page(['b'], 'c2'));
        await settle();
        void pager.setFilters({ specialty: 'Nurse', isActive: true, sort: '-createdAt' });
        expect(calls[2]).toMatchObject({ filters: { specialty: 'Nurse', isActive: true, sort: '-createdAt' }, cursor: null });
        calls[2].answer(page([]));
        await settle();
        expect(pager.state()).toEqual({ status: 'loaded', page: 1, items: [], hasNext: false });
    });

    it('reloads the page on screen, stepping back when it emptied', async () => {
        const { calls, fetchPage } = server();
        const pager = new Pager<Row>(fetchPage);
        void pager.setFilters({});
        calls[0].answer(page(['a'], 'c1'));
        await settle();
        void pager.nextPage();
        calls[1].answer(page(['b']));
        await settle();

        const reloading = pager.reload();
        expect(calls[2].cursor).toBe('c1');
        calls[2].answer(page([])); // its only doctor was removed
        await settle();
        expect(calls[3].cursor).toBeNull();
        calls[3].answer(page(['a']));
        await reloading;
        expect(pager.state()).toEqual({ status: 'loaded', page: 1, items: [{ id: 'a' }], hasNext: false });
    });

    it('shows a failure, and the next try recovers', async () => {
        const { calls, fetchPage } = server();
        const pager = new Pager<Row>(fetchPage);
        void pager.setFilters({});
        calls[0].answer(failure('Failed to load doctors', 500));
        await settle();
        expect(pager.state()).toEqual({ status: 'failed', page: 1, message: 'Failed to load doctors' });
        void pager.reload();
        expect(pager.state()).toMatchObject({ status: 'loading', items: [] });
        calls[1].answer(page(['a']));
        await settle();
        expect(pager.state()).toMatchObject({ status: 'loaded', items: [{ id: 'a' }] });
    });

    it('replaces one row in place and tells its listeners', async () => {
        const { calls, fetchPage } = server();
        const pager = new Pager<{ id: string; active: boolean }>(fetchPage as never);
        let told = 0;
        const stop = pager.subscribe(() => told++);
        void pager.setFilters({});
        calls[0].answer({ ok: true, data: { items: [{ id: 'a', active: true }, { id: 'b', active: true }] } } as never);
        await settle();
        pager.replace(row => row.id === 'b', { id: 'b', active: false });
        expect(pager.state()).toMatchObject({ items: [{ id: 'a', active: true }, { id: 'b', active: false }] });
        expect(told).toBe(3);
        stop();
        pager.replace(row => row.id === 'a', { id: 'a', active: false });
        expect(told).toBe(3);
    });
});
