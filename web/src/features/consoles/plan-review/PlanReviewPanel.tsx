/**
 * The radiotherapist console's plan review: the consultation's RTSTRUCT, RTDOSE and RTPLAN are
 * uploaded, the server computes every structure's cumulative DVH and checks the structures that
 * map to a QUANTEC organ (EQD2 with the plan's own fractions), and the console shows the curves
 * (an SVG chart: no charting library to download on 3G) and the tables, with each check's source.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/ui/Spinner';
import { NETWORK_FAILED } from '@/lib/api/messages';
import {
    compute,
    createReview,
    PLAN_FILE_KINDS,
    PlanReviewError,
    readOrgans,
    readReview,
    uploadFile,
    type OrganCatalogue,
    type PlanFileKind,
    type PlanReview,
} from './api';
import { CHART, CURVE_COLOURS, niceMax, polyline, type CurvePoint } from './chart';
import './planReview.css';

interface StructureRow {
    number: number;
    name: string;
    kind: string;
    organ: string | null;
    organKey: string | null;
    volumeCc?: number;
    dmeanGy?: number;
    dmaxGy?: number;
    dCc?: Record<string, number>;
    dPercent?: Record<string, number>;
    curve?: CurvePoint[];
    reason?: string;
}

interface CheckRow {
    structure: string;
    organ: string;
    metric: string;
    status: 'pass' | 'fail' | 'not assessable';
    value: number | null;
    unit: string;
    eqd2Gy: number | null;
    limit: string;
    reason: string | null;
    source: { row: string };
}

interface Table {
    fractions: number;
    prescriptionGy: number | null;
    structures: StructureRow[];
    checks: CheckRow[];
    warnings: string[];
    source: { citation: string };
}

const FILE_LABELS: Record<PlanFileKind, string> = {
    rtstruct: 'Structure set (RTSTRUCT)',
    rtdose: 'Dose (RTDOSE)',
    rtplan: 'Plan (RTPLAN)',
};
const STATUS_LABELS = { pass: 'Pass', fail: 'Fail', 'not assessable': 'Not assessable' } as const;
const POLL_MS = 1000;

const number = (value: number | null | undefined, digits = 2): string =>
    value === null || value === undefined ? '' : value.toFixed(digits);

type Step =
    | { kind: 'idle' }
    | { kind: 'uploading'; name: string }
    | { kind: 'computing'; done: number; total: number }
    | { kind: 'error'; message: string };

export const PlanReviewPanel = ({ consultationId }: { consultationId: string | null }) => {
    const { t } = useTranslation('plans');
    const id = useId();
    const [files, setFiles] = useState<Partial<Record<PlanFileKind, File>>>({});
    const [fractions, setFractions] = useState('');
    const [step, setStep] = useState<Step>({ kind: 'idle' });
    const [review, setReview] = useState<PlanReview | null>(null);
    const [organs, setOrgans] = useState<OrganCatalogue | null>(null);
    // The physicist's corrections of the name mapping, for this plan.
    const [corrections, setCorrections] = useState<Record<string, string | null>>({});
    const cancelled = useRef(false);
    useEffect(() => {
        cancelled.current = false;
        return () => {
            cancelled.current = true;
        };
    }, []);

    const run = async (event: FormEvent) => {
        event.preventDefault();
        if (!consultationId) return;
        const onServer = new Set(review?.files.map(f => f.kind) ?? []);
        if (!(files.rtstruct || onServer.has('rtstruct')) || !(files.rtdose || onServer.has('rtdose'))) {
            setStep({ kind: 'error', message: t('Choose the RTSTRUCT and the RTDOSE files.') });
            return;
        }
        try {
            let current = review ?? (await createReview(consultationId));
            for (const kind of PLAN_FILE_KINDS) {
                const file = files[kind];
                if (!file) continue;
                setStep({ kind: 'uploading', name: file.name });
                current = await uploadFile(current.id, kind, file);
            }
            setFiles({}); // uploaded: a correction recomputes without sending them again
            await computeAndWait(current, corrections);
        } catch (error) {
            setStep({ kind: 'error', message: error instanceof PlanReviewError ? error.message : NETWORK_FAILED });
        }
    };

    const recompute = async (name: string, organKey: string | null) => {
        if (!review) return;
        const next = { ...corrections, [name]: organKey };
        setCorrections(next);
        try {
            await computeAndWait(review, next);
        } catch (error) {
            setStep({ kind: 'error', message: error instanceof PlanReviewError ? error.message : NETWORK_FAILED });
        }
    };

    const computeAndWait = async (start: PlanReview, structureOrgans: Record<string, string | null>) => {
        if (!organs) readOrgans().then(setOrgans, () => undefined);
        const count = Number.parseInt(fractions, 10);
        let current = await compute(start.id, Number.isFinite(count) && count > 0 ? count : null, structureOrgans);
        setReview(current);
        while (!cancelled.current && (current.state === 'queued' || current.state === 'computing')) {
            setStep({ kind: 'computing', done: current.progress, total: current.progressTotal });
            await new Promise(resolve => setTimeout(resolve, POLL_MS));
            current = await readReview(current.id);
        }
        setReview(current);
        setStep(current.state === 'failed' ? { kind: 'error', message: current.error ?? '' } : { kind: 'idle' });
    };

    const table = review?.state === 'done' ? (review.result as unknown as Table | null) : null;
    const busy = step.kind === 'uploading' || step.kind === 'computing';

    return (
        <section className="plan-review" aria-labelledby={`${id}-title`} data-testid="plan-review">
            <h2 id={`${id}-title`}>{t('Plan review (DVH)')}</h2>
            {!consultationId ? (
                <p className="plan-review-hint">{t('Start the consultation to review a treatment plan.')}</p>
            ) : (
                <form className="plan-review-form" onSubmit={event => void run(event)}>
                    {PLAN_FILE_KINDS.map(kind => (
                        <label key={kind} className="plan-review-file">
                            <span>{t(FILE_LABELS[kind])}</span>
                            <input
                                type="file"
                                accept=".dcm,application/dicom"
                                data-testid={`plan-file-${kind}`}
                                onChange={event => {
                                    const file = event.target.files?.[0];
                                    setFiles(current => ({ ...current, [kind]: file }));
                                }}
                            />
                        </label>
                    ))}
                    <label className="plan-review-file">
                        <span>{t("Fractions (empty: the RTPLAN's)")}</span>
                        <input
                            type="number"
                            min={1}
                            max={100}
                            inputMode="numeric"
                            value={fractions}
                            onChange={event => setFractions(event.target.value)}
                            data-testid="plan-fractions"
                        />
                    </label>
                    <button type="submit" className="btn btn-primary" disabled={busy} data-testid="plan-compute">
                        {t('Compute the DVH')}
                    </button>
                </form>
            )}
            <div role="status" aria-live="polite" className="plan-review-status" data-testid="plan-status">
                {step.kind === 'uploading' && (
                    <>
                        <Spinner /> {t('Uploading {{name}}...', { name: step.name })}
                    </>
                )}
                {step.kind === 'computing' && (
                    <>
                        <Spinner />{' '}
                        {step.total
                            ? t('Computing: {{done}} of {{total}} structures', { done: step.done, total: step.total })
                            : t('Waiting for the computation to start...')}
                    </>
                )}
            </div>
            {step.kind === 'error' && (
                <p className="plan-review-error" role="alert" data-testid="plan-error">
                    {t(step.message)}
                </p>
            )}
            {table && <PlanTable table={table} organs={organs} busy={busy} onOrgan={recompute} />}
        </section>
    );
};

interface PlanTableProps {
    table: Table;
    organs: OrganCatalogue | null;
    busy: boolean;
    onOrgan: (structure: string, organKey: string | null) => void;
}

const PlanTable = ({ table, organs, busy, onOrgan }: PlanTableProps) => {
    const { t } = useTranslation('plans');
    const curves = table.structures.filter(s => s.curve && s.curve.length > 0);
    const maxDose = niceMax(Math.max(...curves.map(s => s.dmaxGy ?? 0), 0));
    const plotBottom = CHART.height - CHART.bottom;
    const ticks = [0, 0.2, 0.4, 0.6, 0.8, 1];
    return (
        <div className="plan-review-result" data-testid="plan-result">
            <p>
                {t('Fractions: {{fractions}}', { fractions: table.fractions })}
                {table.prescriptionGy ? ` · ${t('Prescription: {{dose}} Gy', { dose: table.prescriptionGy })}` : ''}
            </p>
            <figure className="dvh-chart">
                <svg
                    viewBox={`0 0 ${CHART.width} ${CHART.height}`}
                    role="img"
                    aria-label={t('Cumulative dose-volume histograms')}
                    data-testid="dvh-chart"
                >
                    {ticks.map(f => (
                        <g key={f} className="dvh-grid">
                            <line
                                x1={CHART.left}
                                x2={CHART.width - CHART.right}
                                y1={CHART.top + (1 - f) * (plotBottom - CHART.top)}
                                y2={CHART.top + (1 - f) * (plotBottom - CHART.top)}
                            />
                            <text x={CHART.left - 6} y={CHART.top + (1 - f) * (plotBottom - CHART.top) + 4} textAnchor="end">
                                {Math.round(f * 100)}
                            </text>
                            <text
                                x={CHART.left + f * (CHART.width - CHART.left - CHART.right)}
                                y={plotBottom + 16}
                                textAnchor="middle"
                            >
                                {number(f * maxDose, maxDose < 5 ? 1 : 0)}
                            </text>
                        </g>
                    ))}
                    <text x={(CHART.width + CHART.left) / 2} y={CHART.height - 4} textAnchor="middle">
                        {t('Dose (Gy)')}
                    </text>
                    <text x={12} y={(CHART.top + plotBottom) / 2} textAnchor="middle" transform={`rotate(-90 12 ${(CHART.top + plotBottom) / 2})`}>
                        {t('Volume (%)')}
                    </text>
                    {curves.map((s, index) => (
                        <polyline
                            key={s.number}
                            className="dvh-curve"
                            points={polyline(s.curve ?? [], maxDose)}
                            stroke={CURVE_COLOURS[index % CURVE_COLOURS.length]}
                            data-structure={s.name}
                        />
                    ))}
                </svg>
                <figcaption className="dvh-legend">
                    {curves.map((s, index) => (
                        <span key={s.number}>
                            <i style={{ background: CURVE_COLOURS[index % CURVE_COLOURS.length] }} aria-hidden="true" />
                            {s.name}
                        </span>
                    ))}
                </figcaption>
            </figure>
            <div className="plan-review-scroll">
                <table className="plan-review-table" data-testid="plan-structures">
                    <thead>
                        <tr>
                            <th scope="col">{t('Structure')}</th>
                            <th scope="col">{t('Organ')}</th>
                            <th scope="col">{t('Volume (cc)')}</th>
                            <th scope="col">{t('Dmean (Gy)')}</th>
                            <th scope="col">{t('Dmax (Gy)')}</th>
                            <th scope="col">{t('D0.03cc (Gy)')}</th>
                            <th scope="col">{t('D95% (Gy)')}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {table.structures.map(s => (
                            <tr key={s.number}>
                                <th scope="row">{s.name}</th>
                                <td>
                                    {organs && s.kind === 'volume' ? (
                                        <select
                                            aria-label={t('Organ of {{name}}', { name: s.name })}
                                            value={s.organKey ?? ''}
                                            disabled={busy}
                                            data-testid={`plan-organ-${s.number}`}
                                            onChange={event => onOrgan(s.name, event.target.value || null)}
                                        >
                                            <option value="">{t('Not an organ')}</option>
                                            {organs.organs.map(o => (
                                                <option key={o.key} value={o.key}>
                                                    {o.label}
                                                </option>
                                            ))}
                                        </select>
                                    ) : (
                                        (s.organ ?? '')
                                    )}
                                </td>
                                {s.reason && s.volumeCc === undefined ? (
                                    <td colSpan={5}>{s.reason}</td>
                                ) : (
                                    <>
                                        <td>{number(s.volumeCc, 1)}</td>
                                        <td>{number(s.dmeanGy)}</td>
                                        <td>{number(s.dmaxGy)}</td>
                                        <td>{number(s.dCc?.['0.03'])}</td>
                                        <td>{number(s.dPercent?.['95'])}</td>
                                    </>
                                )}
                            </tr>
                        ))}
                    </tbody>
                </table>
            </div>
            <h3>{t('QUANTEC checks')}</h3>
            <div className="plan-review-scroll">
                <table className="plan-review-table" data-testid="plan-checks">
                    <thead>
                        <tr>
                            <th scope="col">{t('Structure')}</th>
                            <th scope="col">{t('Metric')}</th>
                            <th scope="col">{t('Value')}</th>
                            <th scope="col">{t('EQD2 (Gy)')}</th>
                            <th scope="col">{t('Limit')}</th>
                            <th scope="col">{t('Result')}</th>
                            <th scope="col">{t('Source')}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {table.checks.map(c => (
                            <tr key={`${c.structure}-${c.metric}`} data-status={c.status}>
                                <th scope="row">{c.structure}</th>
                                <td>{c.metric}</td>
                                <td>
                                    {number(c.value)} {c.unit}
                                </td>
                                <td>{number(c.eqd2Gy)}</td>
                                <td>{c.limit}</td>
                                <td className={`plan-status plan-status-${c.status.replace(' ', '-')}`}>
                                    {t(STATUS_LABELS[c.status])}
                                    {c.reason ? ` (${c.reason})` : ''}
                                </td>
                                <td>{c.source.row}</td>
                            </tr>
                        ))}
                    </tbody>
                </table>
            </div>
            {table.warnings.length > 0 && (
                <ul className="plan-review-warnings">
                    {table.warnings.map(w => (
                        <li key={w}>{w}</li>
                    ))}
                </ul>
            )}
            <p className="plan-review-caution">
                {t('Decision support, not a diagnosis: QUANTEC values are guidance, not hard thresholds.')}{' '}
                {table.source.citation}
            </p>
        </div>
    );
};
