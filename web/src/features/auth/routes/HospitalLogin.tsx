import { LoginPage } from '../components/LoginForm';

/** /hospital-login (spec §2). */
const HospitalLogin = () => <LoginPage role="hospital" />;

export default HospitalLogin;
