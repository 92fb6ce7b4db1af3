/**
 * /consultations: every consultation of the signed-in doctor, newest first,
 * with its console, start, length, line count, title and state. The search
 * box and the date and state filters run on the server; "Load more" follows
 * the server's cursor (keyset pagination), so a deep page costs what the
 * first one does.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { SelectField, TextField } from '@/components/ui/Field';
import { Spinner } from '@/components/ui/Spinner';
import { consultationPath } from '@/config/paths';
import { useRowWindow } from '@/lib/rowWindow';
import { listConsultations, type ConsultationFilters, type ConsultationSummary } from '../api';
import { StateBadge, useConsoleName } from '../components/StateBadge';
import { useConsultationTitle } from '../components/title';
import { formatDateTime, formatDuration } from '../format';

import '../consultations.css';

type Load =
    | { state: 'loading' }
    | { state: 'failed'; message: string }
    | { state: 'loaded'; items: ConsultationSummary[]; cursor: string | null; more: 'idle' | 'loading' | 'failed' };

const SEARCH_DELAY_MS = 300;

const ConsultationsPage = () => {
    const { t, i18n } = useTranslation('consultations');
    const consoleName = useConsoleName();
    const titleOf = useConsultationTitle();
    const language = i18n.resolvedLanguage ?? 'en';
    const [text, setText] = useState('');
    const [query, setQuery] = useState('');
    const [from, setFrom] = useState('');
    const [to, setTo] = useState('');
    const [state, setState] = useState('');
    const [load, setLoad] = useState<Load>({ state: 'loading' });
    // After many "Load more", only the rows near the viewport are in the page.
    const listRef = useRef<HTMLUListElement>(null);
    const rows = useRowWindow(load.state === 'loaded' ? load.items.length : 0, listRef, '[data-testid=consultation-row]');
    const request = useRef(0);

    // The text filter waits for a pause in typing; the others apply at once.
    useEffect(() => {
        const timer = window.setTimeout(() => setQuery(text.trim()), SEARCH_DELAY_MS);
        return () => window.clearTimeout(timer);
    }, [text]);

    const filters: ConsultationFilters = {
        q: query || undefined,
        from: from || undefined,
        to: to || undefined,
        state: (state || undefined) as ConsultationFilters['state'],
    };
    const key = JSON.stringify(filters);

    const fetchFirst = useCallback(async () => {
        const ticket = ++request.current;
        setLoad({ state: 'loading' });
        const result = await listConsultations(JSON.parse(key) as ConsultationFilters, null);
        if (ticket !== request.current) return; // a newer filter won
        setLoad(
            result.ok
                ? { state: 'loaded', items: result.data.items, cursor: result.data.nextCursor ?? null, more: 'idle' }
                : { state: 'failed', message: result.message },
        );
    }, [key]);

    useEffect(() => {
        void fetchFirst();
    }, [fetchFirst]);

    const loadMore = async () => {
        if (load.state !== 'loaded' || !load.cursor) return;
        const ticket = request.current;
        setLoad({ ...load, more: 'loading' });
        const result = await listConsultations(JSON.parse(key) as ConsultationFilters, load.cursor);
        if (ticket !== request.current) return;
        setLoad(current => {
            if (current.state !== 'loaded') return current;
            return result.ok
                ? {
                      state: 'loaded',
                      items: [...current.items, ...result.data.items],
                      cursor: result.data.nextCursor ?? null,
                      more: 'idle',
                  }
                : { ...current, more: 'failed' };
        });
    };

    const filtered = Boolean(query || from || to || state);

    return (
        <main className="page cons-page">
            <header className="cons-header">
                <h1>{t('Consultations')}</h1>
                <p className="cons-intro">
                    {t('Every consultation you held with Cara: review the transcript, edit and sign the note.')}
                </p>
            </header>

            <form className="cons-filters card" role="search" onSubmit={event => event.preventDefault()}>
                <TextField
                    label={t('Search')}
                    type="search"
                    value={text}
                    onChange={event => setText(event.target.value)}
                    placeholder={t('Title, patient reference or transcript')}
                    data-testid="consultations-search"
                />
                <TextField label={t('From')} type="date" value={from} onChange={event => setFrom(event.target.value)} />
                <TextField label={t('To')} type="date" value={to} onChange={event => setTo(event.target.value)} />
                <SelectField
                    label={t('State')}
                    value={state}
                    onChange={event => setState(event.target.value)}
                    placeholder={t('All states')}
                    options={[
                        { value: 'in_progress', label: t('In progress') },
                        { value: 'draft', label: t('Draft') },
                        { value: 'signed', label: t('Signed') },
                    ]}
                    data-testid="consultations-state"
                />
            </form>

            {load.state === 'loading' && (
                <div className="page-loading">
                    <Spinner label={t('Loading consultations...')} />
                </div>
            )}
            {load.state === 'failed' && (
                <Alert kind="error" title={t('Could not load the consultations.')}>
                    <p>{t(load.message)}</p>
                    <Button variant="secondary" onClick={() => void fetchFirst()}>
                        {t('Try again')}
                    </Button>
                </Alert>
            )}
            {load.state === 'loaded' && load.items.length === 0 && (
                <p className="cons-empty card" data-testid="consultations-empty">
                    {filtered
                        ? t('No consultation matches these filters.')
                        : t('No consultations yet. They appear here when you start one from an assistant console.')}
                </p>
            )}
            {load.state === 'loaded' && load.items.length > 0 && (
                <>
                    <ul className="cons-list" data-testid="consultations-list" ref={listRef}>
                        {rows.before > 0 && <li className="row-spacer" aria-hidden="true" style={{ height: rows.before }} />}
                        {load.items.slice(rows.start, rows.end).map(item => (
                            <li key={item.id} className="cons-item card" data-testid="consultation-row">
                                <div className="cons-item-head">
                                    <Link className="cons-item-title" to={consultationPath(item.id)}>
                                        {titleOf(item)}
                                    </Link>
                                    <StateBadge state={item.state} />
                                </div>
                                <dl className="cons-item-facts">
                                    <div>
                                        <dt>{t('Console')}</dt>
                                        <dd>
                                            {consoleName(item.console)}
                                            {item.source === 'recorded' && ` · ${t('Recorded offline')}`}
                                        </dd>
                                    </div>
                                    <div>
                                        <dt>{t('Started')}</dt>
                                        <dd>{formatDateTime(item.startedAt, language)}</dd>
                                    </div>
                                    <div>
                                        <dt>{t('Duration')}</dt>
                                        <dd>{formatDuration(item.durationSeconds) || t('Not available')}</dd>
                                    </div>
                                    <div>
                                        <dt>{t('Lines')}</dt>
                                        <dd>{item.lineCount}</dd>
                                    </div>
                                </dl>
                            </li>
                        ))}
                        {rows.after > 0 && <li className="row-spacer" aria-hidden="true" style={{ height: rows.after }} />}
                    </ul>
                    {load.more === 'failed' && (
                        <Alert kind="error">
                            <p>{t('Could not load more consultations.')}</p>
                        </Alert>
                    )}
                    {load.cursor && (
                        <div className="cons-more">
                            <Button
                                variant="secondary"
                                busy={load.more === 'loading'}
                                onClick={() => void loadMore()}
                                data-testid="consultations-more"
                            >
                                {t('Load more')}
                            </Button>
                        </div>
                    )}
                </>
            )}
        </main>
    );
};

export default ConsultationsPage;
