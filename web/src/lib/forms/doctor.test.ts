import { describe, expect, it } from 'vitest';

import { DOCTOR_FORMS, validateDoctorFields, type DoctorFields } from './doctor';

// The doctor rules of every form, checked once against the spec's texts (spec §5, §9).
const VALID: DoctorFields = {
    name: 'Ama Mensah',
    email: 'ama@example.com',
    phoneNumber: '0241234567',
    specialty: 'Radiologist',
    licenseNumber: 'GH-123',
    experience: '5',
    country: 'Ghana',
    state: 'Greater Accra',
    password: 'longenough',
};
const BLANK: DoctorFields = {
    name: ' ',
    email: '',
    phoneNumber: '',
    specialty: '',
    licenseNumber: '',
    experience: '0',
    country: '',
    state: '',
    password: '',
};

describe('validateDoctorFields', () => {
    it.each(Object.entries(DOCTOR_FORMS))('accepts a complete doctor on the %s form', (_, rules) => {
        expect(validateDoctorFields(VALID, rules)).toEqual({});
    });

    it('gives the registration form its texts', () => {
        expect(validateDoctorFields(BLANK, DOCTOR_FORMS.registration)).toEqual({
            name: 'Name is required',
            email: 'Email is required',
            phoneNumber: 'Phone number is required',
            specialty: 'Specialty is required',
            licenseNumber: 'License number is required',
            country: 'Country is required',
            state: 'State is required',
            password: 'Password is required',
        });
        const short = { ...VALID, email: 'ama@', password: '12345', experience: '-1' };
        expect(validateDoctorFields(short, DOCTOR_FORMS.registration)).toEqual({
            email: 'Invalid email format',
            password: 'Password must be at least 6 characters',
            experience: 'Experience cannot be negative',
        });
    });

    it('asks more than 0 years and says "Email is invalid" on the dashboard add form', () => {
        const form = { ...VALID, email: 'nope', password: '123456', experience: '0' };
        expect(validateDoctorFields(form, DOCTOR_FORMS.dashboardAdd)).toEqual({
            email: 'Email is invalid',
            experience: 'Experience must be greater than 0',
        });
        expect(validateDoctorFields({ ...form, experience: '' }, DOCTOR_FORMS.dashboardAdd).experience).toBe(
            'Experience must be greater than 0',
        );
        expect(validateDoctorFields(BLANK, DOCTOR_FORMS.dashboardAdd).state).toBe('State is required');
    });

    it('asks 8 characters, 10-15 digits and a State/Province on Manage Doctors', () => {
        const form = { ...VALID, phoneNumber: '+233 24 123', password: '1234567', state: '' };
        expect(validateDoctorFields(form, DOCTOR_FORMS.manageDoctors)).toEqual({
            phoneNumber: 'Invalid phone number format',
            password: 'Password must be at least 8 characters',
            state: 'State/Province is required',
        });
        // Editing a doctor: the password is not part of the form.
        expect(validateDoctorFields({ ...form, password: '' }, DOCTOR_FORMS.manageDoctors, { withPassword: false }))
            .not.toHaveProperty('password');
    });

    it('checks the profile without country, state or password, and refuses a blank experience', () => {
        const form = { ...BLANK, name: 'Ama', email: 'ama@example.com', specialty: 'Nurse', licenseNumber: 'L1' };
        expect(validateDoctorFields({ ...form, phoneNumber: '+233 (24) 123-4567', experience: '' }, DOCTOR_FORMS.profile))
            .toEqual({ experience: 'Experience must be a whole number of years' });
        expect(validateDoctorFields({ ...form, phoneNumber: 'call me', experience: '3' }, DOCTOR_FORMS.profile)).toEqual(
            { phoneNumber: 'Invalid phone number format' },
        );
    });

    it.each([
        ['2.5', 'Experience must be a whole number of years'],
        ['abc', 'Experience must be a whole number of years'],
        ['81', 'Experience must be 80 years or less'],
        ['80', undefined],
    ])('reads experience %j the same on every form', (experience, message) => {
        for (const rules of Object.values(DOCTOR_FORMS)) {
            expect(validateDoctorFields({ ...VALID, experience }, rules).experience).toBe(message);
        }
    });
});
