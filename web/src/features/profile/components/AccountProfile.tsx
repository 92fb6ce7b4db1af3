import { useTranslation } from 'react-i18next';

import type { SessionUser } from '@/lib/session/storage';
import { ProfileHeader } from './ProfileHeader';

/**
 * Hospitals and admins may open /profile too (spec §2), but only doctors
 * have a profile to edit (PUT /api/auth/doctor/profile): they see their
 * personal information read-only, without an edit button.
 */
export const AccountProfile = ({ user }: { user: SessionUser }) => {
    const { t } = useTranslation('doctor');
    const role = { doctor: t('Doctor'), hospital: t('Hospital'), admin: t('Admin') }[user.role];
    const rows: [string, string, string][] = [
        ['name', t('Full Name'), user.name],
        ['email', t('Email'), user.email],
        ['phone', t('Phone Number'), user.phoneNumber || t('Not provided')],
        ['role', t('Role'), role],
    ];
    if (user.role === 'hospital' && user.hospitalName && user.hospitalName !== user.name)
        rows.push(['hospital', t('Hospital'), user.hospitalName]);

    return (
        <main className="page profile-page">
            <ProfileHeader name={user.name} subtitle={role} />
            <section className="card profile-card" aria-labelledby="profile-account-heading">
                <h2 id="profile-account-heading" className="profile-panel-title">
                    {t('Personal Information')}
                </h2>
                <dl className="profile-details" data-testid="account-details">
                    {rows.map(([id, label, value]) => (
                        <div key={id} className="profile-detail" data-detail={id}>
                            <dt>{label}</dt>
                            <dd>{value}</dd>
                        </div>
                    ))}
                </dl>
                <p className="profile-note">
                    {t('These details are read-only here. Only doctor profiles can be edited on this page.')}
                </p>
            </section>
        </main>
    );
};
