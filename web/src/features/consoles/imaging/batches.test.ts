import { describe, expect, it } from 'vitest';

import { failure, type Result } from '@/lib/api/result';
import { planBatches, sendBatches } from './batches';

const files = (...sizes: number[]) => sizes.map((size, index) => ({ size, name: `f${index}` }));

describe('planBatches', () => {
    it('keeps parts under the byte and file limits, a large file alone', () => {
        const parts = planBatches(files(4, 4, 4, 20, 1, 1, 1), 10, 2);
        expect(parts.map(part => part.map(file => file.name))).toEqual([['f0', 'f1'], ['f2'], ['f3'], ['f4', 'f5'], ['f6']]);
    });
});

describe('sendBatches', () => {
    const noWait = { wait: async () => undefined };

    it('sends a part again after a dropped link, then goes on', async () => {
        const answers: Result<string>[] = [{ ok: true, data: 'a' }, failure('offline'), { ok: true, data: 'b' }];
        const sent: string[] = [];
        const progress: number[] = [];
        const run = await sendBatches(
            planBatches(files(5, 5), 5, 1),
            async batch => {
                sent.push(batch[0].name);
                return answers.shift() ?? failure('none left');
            },
            fraction => progress.push(fraction),
            noWait,
        );
        expect(sent).toEqual(['f0', 'f1', 'f1']);
        expect(run).toEqual({ done: 2, stored: ['a', 'b'] });
        expect(progress.at(-1)).toBe(1);
    });

    it('stops after the last try, resumable from the part that failed', async () => {
        const sent: string[] = [];
        const parts = planBatches(files(1, 1, 1), 1, 1);
        let linkUp = true;
        const send = async (batch: readonly { name: string }[]): Promise<Result<string>> => {
            sent.push(batch[0].name);
            if (batch[0].name === 'f1' && !linkUp) return failure('offline', 0);
            return { ok: true, data: batch[0].name };
        };
        linkUp = false;
        const first = await sendBatches(parts, send, () => undefined, noWait);
        expect(first.done).toBe(1);
        expect(first.stopped).toEqual({ message: 'offline', status: 0, resumable: true });
        expect(sent).toEqual(['f0', 'f1', 'f1', 'f1']);
        linkUp = true;
        const resumed = await sendBatches(parts, send, () => undefined, { ...noWait, from: first.done });
        expect(resumed).toEqual({ done: 3, stored: ['f1', 'f2'] });
        expect(sent.slice(4)).toEqual(['f1', 'f2']);
    });

    it('stops for good on a refusal, without trying again', async () => {
        const sent: string[] = [];
        const run = await sendBatches(
            planBatches(files(1, 1), 1, 1),
            async batch => {
                sent.push(batch[0].name);
                return failure('Nothing was stored: notes.txt is not a DICOM file.', 422);
            },
            () => undefined,
            noWait,
        );
        expect(sent).toEqual(['f0']);
        expect(run.stopped).toEqual({
            message: 'Nothing was stored: notes.txt is not a DICOM file.',
            status: 422,
            resumable: false,
        });
    });
});
