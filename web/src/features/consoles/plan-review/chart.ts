/** The DVH chart's geometry: cumulative curves (dose Gy, volume %) as SVG polyline points. */

export type CurvePoint = readonly [number, number];

export interface ChartBox {
    width: number;
    height: number;
    left: number;
    bottom: number;
    top: number;
    right: number;
}

export const CHART: ChartBox = { width: 640, height: 320, left: 48, bottom: 36, top: 12, right: 12 };

/** A round upper bound for the dose axis (Gy): 1, 2 or 5 times a power of ten. */
export const niceMax = (value: number): number => {
    if (!(value > 0)) return 1;
    const power = 10 ** Math.floor(Math.log10(value));
    for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
    return 10 * power;
};

/** "x,y x,y ..." of one curve in the chart's box, dose from 0 to `maxDose`, volume 0 to 100 %. */
export const polyline = (curve: readonly CurvePoint[], maxDose: number, box: ChartBox = CHART): string => {
    const plotWidth = box.width - box.left - box.right;
    const plotHeight = box.height - box.top - box.bottom;
    return curve
        .map(([dose, volume]) => {
            const x = box.left + (Math.min(dose, maxDose) / maxDose) * plotWidth;
            const y = box.top + (1 - Math.min(Math.max(volume, 0), 100) / 100) * plotHeight;
            return `${x.toFixed(1)},${y.toFixed(1)}`;
        })
        .join(' ');
};

/** Distinct colours for up to ten curves, then again. */
export const CURVE_COLOURS = [
    '#1f77b4',
    '#d62728',
    '#2ca02c',
    '#9467bd',
    '#ff7f0e',
    '#17becf',
    '#8c564b',
    '#e377c2',
    '#7f7f7f',
    '#bcbd22',
];
