import { LoginPage } from '../components/LoginForm';

/** /doctor-login (spec §2). */
const DoctorLogin = () => <LoginPage role="doctor" />;

export default DoctorLogin;
