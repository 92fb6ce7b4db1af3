/// <reference types="node" />
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { elevation, fontFamily, fontSize, palettes, radius, space } from './tokens';

// tokens.css is what the app renders, tokens.ts what the admin console's theme
// is built from: one brand only if both hold the same values.
const css = readFileSync(new URL('./tokens.css', import.meta.url), 'utf8');

const block = (selector: string): Record<string, string> => {
    const start = css.indexOf(`${selector} {`);
    const body = css.slice(start, css.indexOf('}', start));
    return Object.fromEntries(
        [...body.matchAll(/--([\w-]+):\s*([^;]+);/g)].map(([, name, value]) => [name, value.trim()]),
    );
};

const kebab = (name: string) => name.replace(/([A-Z])/g, '-$1').replace(/(\d+)/g, '-$1').toLowerCase();

describe('design tokens', () => {
    const light = block(':root');
    const dark = block("[data-theme='dark']");

    it('declares every palette colour in CSS, light and dark', () => {
        for (const [name, value] of Object.entries(palettes.light)) expect(light[kebab(name)], name).toBe(value);
        for (const [name, value] of Object.entries(palettes.dark)) expect(dark[kebab(name)], name).toBe(value);
    });

    it('declares the type, spacing, radius and elevation scales', () => {
        expect(light['font-family']).toBe(fontFamily);
        for (const [step, rem] of Object.entries(fontSize)) expect(light[`font-size-${step}`]).toBe(`${rem}rem`);
        for (const [step, rem] of Object.entries(space)) expect(light[`space-${step}`]).toBe(`${rem}rem`);
        for (const [step, px] of Object.entries(radius)) expect(light[`radius-${step}`]).toBe(`${px}px`);
        for (const [step, shadow] of Object.entries(elevation)) expect(light[`elevation-${step}`]).toBe(shadow);
    });
});
