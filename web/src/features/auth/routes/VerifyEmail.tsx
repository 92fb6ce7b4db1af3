import { EmailChangeLink } from '../components/EmailChangeLink';

/** /verify-email?token=...: the link mailed to a new hospital's address. */
const VerifyEmail = () => <EmailChangeLink kind="verify" />;

export default VerifyEmail;
