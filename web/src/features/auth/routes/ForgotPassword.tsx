import { useSearchParams } from 'react-router';

import { NewPasswordForm } from '../components/NewPasswordForm';
import { RequestResetForm } from '../components/RequestResetForm';

/**
 * /forgot-password: asks for an email, or, opened from the emailed link
 * (?token=...), sets the new password. Keyed by the token so following a
 * different link starts from a clean form.
 */
const ForgotPassword = () => {
    const [params] = useSearchParams();
    const token = params.get('token');
    return token ? <NewPasswordForm key={token} token={token} /> : <RequestResetForm />;
};

export default ForgotPassword;
