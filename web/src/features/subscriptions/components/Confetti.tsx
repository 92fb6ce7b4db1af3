import { useEffect, useRef, useState } from 'react';

/**
 * Spec §9: 200 pieces for 5 seconds, no recycling (a piece that falls off
 * screen is gone). A canvas and requestAnimationFrame keep it dependency-free;
 * readers who ask for reduced motion get none.
 */
const PIECES = 200;
const DURATION_MS = 5000;
const COLOURS = ['#0b5cad', '#f59e0b', '#146c2e', '#b42318', '#7c3aed', '#0ea5e9'];

interface Piece {
    x: number;
    y: number;
    vx: number;
    vy: number;
    size: number;
    angle: number;
    spin: number;
    colour: string;
}

export const Confetti = () => {
    const canvas = useRef<HTMLCanvasElement>(null);
    const [done, setDone] = useState(
        () => typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches,
    );

    useEffect(() => {
        if (done) return;
        const element = canvas.current;
        const context = element?.getContext('2d');
        if (!element || !context) return;
        const resize = () => {
            element.width = window.innerWidth;
            element.height = window.innerHeight;
        };
        resize();
        window.addEventListener('resize', resize);
        const pieces: Piece[] = Array.from({ length: PIECES }, () => ({
            x: Math.random() * element.width,
            y: -20 - Math.random() * element.height * 0.5,
            vx: (Math.random() - 0.5) * 4,
            vy: 2 + Math.random() * 4,
            size: 6 + Math.random() * 6,
            angle: Math.random() * Math.PI,
            spin: (Math.random() - 0.5) * 0.3,
            colour: COLOURS[Math.floor(Math.random() * COLOURS.length)],
        }));
        const started = performance.now();
        let frame = 0;
        let last = started;
        const draw = (now: number) => {
            // Steps scale with real time so slow machines finish on schedule.
            const step = Math.min((now - last) / 16.7, 4);
            last = now;
            context.clearRect(0, 0, element.width, element.height);
            for (const piece of pieces) {
                if (piece.y > element.height + 20) continue;
                piece.vy += 0.05 * step;
                piece.x += piece.vx * step;
                piece.y += piece.vy * step;
                piece.angle += piece.spin * step;
                context.save();
                context.translate(piece.x, piece.y);
                context.rotate(piece.angle);
                context.fillStyle = piece.colour;
                context.fillRect(-piece.size / 2, -piece.size / 4, piece.size, piece.size / 2);
                context.restore();
            }
            if (now - started < DURATION_MS) frame = requestAnimationFrame(draw);
            else setDone(true);
        };
        frame = requestAnimationFrame(draw);
        return () => {
            cancelAnimationFrame(frame);
            window.removeEventListener('resize', resize);
        };
    }, [done]);

    if (done) return null;
    return <canvas ref={canvas} className="sub-confetti" aria-hidden="true" data-testid="confetti" />;
};
