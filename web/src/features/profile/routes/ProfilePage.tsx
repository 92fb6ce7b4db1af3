import { useSession } from '@/lib/session/SessionProvider';
import { AccountProfile } from '../components/AccountProfile';
import { AccountSecurity } from '../components/AccountSecurity';
import { DoctorProfile } from '../components/DoctorProfile';
import '../profile.css';

/**
 * /profile, for any signed-in user (spec §2): doctors edit their profile;
 * hospitals and admins, who have no profile endpoint, see their details.
 */
const ProfilePage = () => {
    const { user } = useSession();
    if (!user) return null; // the route's guard sends visitors away first
    return (
        <>
            {user.role === 'doctor' ? <DoctorProfile user={user} /> : <AccountProfile user={user} />}
            <div className="page profile-page profile-security">
                <AccountSecurity />
            </div>
        </>
    );
};

export default ProfilePage;
