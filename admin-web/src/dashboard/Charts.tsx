/**
 * The two dashboard charts. This module (with chart.js) is its own chunk,
 * loaded by the dashboard after first paint; nothing else imports it eagerly.
 */
import {
    ArcElement,
    CategoryScale,
    Chart as ChartJS,
    Filler,
    Legend,
    LinearScale,
    LineElement,
    PointElement,
    Tooltip,
} from 'chart.js';
import { Doughnut, Line } from 'react-chartjs-2';
import { formatDollars } from '../lib/format';

ChartJS.register(ArcElement, CategoryScale, Filler, Legend, LinearScale, LineElement, PointElement, Tooltip);

/** Spec §9: five fixed doughnut colours (repeated past five plans). */
export const PLAN_COLOURS = ['#1976d2', '#2e7d32', '#ed6c02', '#9c27b0', '#d32f2f'];

export interface RevenueChartProps {
    labels: string[];
    data: number[];
    seriesLabel: string;
    rtl: boolean;
}

// Respect the operating system's "reduce motion" setting: no chart animations.
const reducedMotion = (): boolean =>
    typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;

// The canvas is an image to assistive technology: its name says what it shows
// (the figures are in the cards and the lists beside it).
export const RevenueChart = ({ labels, data, seriesLabel, rtl }: RevenueChartProps) => (
    <Line
        role="img"
        aria-label={seriesLabel}
        data={{
            labels,
            datasets: [
                {
                    label: seriesLabel,
                    data,
                    borderColor: PLAN_COLOURS[0],
                    backgroundColor: 'rgba(25, 118, 210, 0.15)',
                    fill: true,
                    tension: 0.3,
                },
            ],
        }}
        options={{
            responsive: true,
            maintainAspectRatio: false,
            animation: reducedMotion() ? false : undefined,
            plugins: {
                legend: { display: false, rtl },
                tooltip: { rtl, callbacks: { label: item => formatDollars(item.parsed.y) } },
            },
            scales: {
                x: { reverse: rtl },
                y: { beginAtZero: true, position: rtl ? 'right' : 'left', ticks: { callback: value => formatDollars(Number(value)) } },
            },
        }}
    />
);

export interface PlanChartProps {
    /** Subscriptions by plan key (a plan's code, 'trial' or 'other'). */
    byPlan: Record<string, number>;
    /** The plan's name in the interface's language. */
    planLabel: (plan: string) => string;
    rtl: boolean;
}

export const PlanDistributionChart = ({ byPlan, planLabel, rtl }: PlanChartProps) => {
    const plans = Object.keys(byPlan);
    return (
        <Doughnut
            // An empty doughnut says nothing: the card's 'no plans' text does.
            {...(plans.length
                ? { role: 'img', 'aria-label': plans.map(plan => `${planLabel(plan)}: ${byPlan[plan]}`).join(', ') }
                : { 'aria-hidden': true })}
            data={{
                labels: plans.map(planLabel),
                datasets: [
                    {
                        data: plans.map(plan => byPlan[plan]),
                        backgroundColor: plans.map((_, index) => PLAN_COLOURS[index % PLAN_COLOURS.length]),
                    },
                ],
            }}
            options={{
                responsive: true,
                maintainAspectRatio: false,
                animation: reducedMotion() ? false : undefined,
                plugins: {
                    legend: { position: 'bottom', rtl },
                    tooltip: { rtl },
                },
            }}
        />
    );
};
