import { EmailChangeLink } from '../components/EmailChangeLink';

/** /undo-email-change?token=...: the link mailed to the old address after a sign-in email change. */
const UndoEmailChange = () => <EmailChangeLink kind="undo" />;

export default UndoEmailChange;
