import { LoginPage } from '../components/LoginForm';

/** /admin-login (spec §2). */
const AdminLogin = () => <LoginPage role="admin" />;

export default AdminLogin;
