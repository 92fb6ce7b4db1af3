import type { TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';

import type { SessionUser } from '@/lib/session/storage';
import { homePath, navigationFor } from './navigation';

const t = ((key: string) => key) as unknown as TFunction;
const user = (fields: Partial<SessionUser>): SessionUser => ({ name: 'A', email: 'a@example.com', ...fields }) as SessionUser;
const links = (who: SessionUser) => navigationFor(who, t).map(item => `${item.label} ${item.to}`);

describe('navigationFor', () => {
    it("gives a doctor their console, the general assistant, the record, the dashboard and the plans", () => {
        expect(links(user({ role: 'doctor', specialty: 'General Practitioner' }))).toEqual([
            'My console /general-practitioner',
            'General assistant /assistant',
            'Consultations /consultations',
            'Dashboard /doctor-dashboard',
            'Subscription /doctor-subscription',
            'Profile /profile',
        ]);
    });

    it('adds the chat for radiotherapists only', () => {
        const items = links(user({ role: 'doctor', specialty: 'Radiotherapist' }));
        expect(items.slice(0, 3)).toEqual(['My console /radiotherapist', 'General assistant /assistant', 'Chat /radiotherapist-chat']);
    });

    it('leaves out the console of a doctor without a specialty', () => {
        expect(links(user({ role: 'doctor', specialty: null }))[0]).toBe('General assistant /assistant');
    });

    it('gives a hospital its dashboard, doctors, signed notes, security log and plan', () => {
        expect(links(user({ role: 'hospital' }))).toEqual([
            'Dashboard /dashboard',
            'Doctors /manage',
            'Signed notes /signed-notes',
            'Security /security',
            'Subscription /subscription',
            'Profile /profile',
        ]);
    });

    it("keeps the admin's links", () => {
        expect(links(user({ role: 'admin' }))).toEqual(['Dashboard /admin-dashboard', 'Profile /profile']);
    });
});

describe('homePath', () => {
    it("is a doctor's console, else the role's dashboard", () => {
        expect(homePath(user({ role: 'doctor', specialty: 'Nurse' }))).toBe('/nurse');
        expect(homePath(user({ role: 'doctor', specialty: null }))).toBe('/doctor-dashboard');
        expect(homePath(user({ role: 'hospital' }))).toBe('/dashboard');
        expect(homePath(user({ role: 'admin' }))).toBe('/admin-dashboard');
    });
});
