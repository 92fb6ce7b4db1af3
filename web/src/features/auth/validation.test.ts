import { describe, expect, it } from 'vitest';

import { hasErrors, validateLogin, validateNewPassword } from './validation';

// The sign-in and reset checks against the spec's texts (spec §5, §9).
describe('validateLogin', () => {
    it('asks for both fields, a whitespace-only password counting as none', () => {
        expect(validateLogin('doctor', { email: ' ', password: '   ' })).toEqual({
            email: 'Email is required',
            password: 'Password is required',
        });
    });

    it('refuses an address without the simple pattern', () => {
        expect(validateLogin('doctor', { email: 'ama@example', password: 'x' }).email).toBe('Invalid email format');
    });

    it('asks hospitals and admins for 8 characters, doctors for none', () => {
        const short = { email: 'ama@example.com', password: 'short' };
        expect(validateLogin('hospital', short).password).toBe('Password must be at least 8 characters long');
        expect(validateLogin('admin', short).password).toBe('Password must be at least 8 characters long');
        expect(hasErrors(validateLogin('doctor', short))).toBe(false);
    });
});

describe('validateNewPassword', () => {
    it('asks for a password of 8 and the same confirmation', () => {
        expect(validateNewPassword({ password: '  ', confirm: '' })).toEqual({
            password: 'Password is required',
            confirm: 'Please confirm your password',
        });
        expect(validateNewPassword({ password: 'short', confirm: 'other' })).toEqual({
            password: 'Password must be at least 8 characters',
            confirm: 'Passwords do not match',
        });
        expect(hasErrors(validateNewPassword({ password: 'longenough', confirm: 'longenough' }))).toBe(false);
    });
});
