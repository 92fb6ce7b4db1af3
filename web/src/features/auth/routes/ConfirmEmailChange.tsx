import { EmailChangeLink } from '../components/EmailChangeLink';

/** /confirm-email-change?token=...: the link mailed to the new address a hospital gave its doctor. */
const ConfirmEmailChange = () => <EmailChangeLink kind="confirm" />;

export default ConfirmEmailChange;
