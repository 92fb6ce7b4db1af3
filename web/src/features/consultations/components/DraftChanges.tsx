import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/ui/Spinner';
import { listDraftChanges, type DraftChange } from '../api';

type Load = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; rows: DraftChange[] };

/**
 * For a hospital: how much its doctors change Cara's drafts before signing, per template (the
 * share of the draft's words changed). A template whose drafts are rewritten is one that works
 * badly for this hospital.
 */
export const DraftChanges = () => {
    const { t, i18n } = useTranslation('consultations');
    const [load, setLoad] = useState<Load>({ state: 'loading' });
    const percent = new Intl.NumberFormat(i18n.resolvedLanguage ?? 'en', { style: 'percent', maximumFractionDigits: 0 });

    useEffect(() => {
        let live = true;
        void listDraftChanges().then(result => {
            if (!live) return;
            setLoad(result.ok ? { state: 'loaded', rows: result.data } : { state: 'failed', message: result.message });
        });
        return () => {
            live = false;
        };
    }, []);

    const label = (row: DraftChange) =>
        (row.templateTitle ? t(row.templateTitle) : null) ?? (row.draftKind === 'report' ? t('Report draft') : row.draftKind === 'summary' ? t('Summary') : t('Note'));

    return (
        <section className="card cons-panel cons-draft-changes" aria-labelledby="draft-changes-heading" data-testid="draft-changes">
            <h2 id="draft-changes-heading">{t('How much drafts change before signing')}</h2>
            <p className="cons-muted">
                {t('Per template, the share of the draft’s words your doctors changed before signing. A high share points to a template that works badly.')}
            </p>
            {load.state === 'loading' && <Spinner label={t('Loading the figures...')} />}
            {load.state === 'failed' && <p className="cons-muted">{t(load.message)}</p>}
            {load.state === 'loaded' && load.rows.length === 0 && (
                <p className="cons-muted" data-testid="draft-changes-empty">
                    {t('No note has been signed from a draft yet.')}
                </p>
            )}
            {load.state === 'loaded' && load.rows.length > 0 && (
                <div className="cons-table-wrap">
                    <table className="cons-table">
                        <thead>
                            <tr>
                                <th scope="col">{t('Template')}</th>
                                <th scope="col">{t('Notes signed')}</th>
                                <th scope="col">{t('Changed (median)')}</th>
                                <th scope="col">{t('Changed (mean)')}</th>
                            </tr>
                        </thead>
                        <tbody>
                            {load.rows.map(row => (
                                <tr key={`${row.template ?? ''}:${row.draftKind ?? ''}`} data-testid="draft-change-row">
                                    <th scope="row">{label(row)}</th>
                                    <td>{row.signed}</td>
                                    <td>{percent.format(row.medianChanged)}</td>
                                    <td>{percent.format(row.meanChanged)}</td>
                                </tr>
                            ))}
                        </tbody>
                    </table>
                </div>
            )}
        </section>
    );
};
