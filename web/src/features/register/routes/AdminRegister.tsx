import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { TextField } from '@/components/ui/Field';
import { useToast } from '@/components/ui/Toasts';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session/SessionProvider';
import type { SignupBody } from '../api';
import { PasswordFields } from '../components/RegisterFields';
import { FailureAlert, RegisterPage } from '../components/RegisterLayout';
import { useRegistrationForm } from '../components/useRegistrationForm';
import { EMPTY_ADMIN_FORM, validateAdmin, type AdminForm } from '../validation';

/**
 * /admin-register?invitation=<token> (spec §2, §3, §5). The server only
 * creates an admin for a valid, unexpired invitation sent to the same email
 * (cara.auth.service._check_invitation), so without the link's token the
 * form would always fail: the page explains that instead of showing it.
 */
const AdminRegister = () => {
    const { t } = useTranslation('register');
    const [params] = useSearchParams();
    const invitation = params.get('invitation')?.trim() ?? '';
    return (
        <RegisterPage title={t('Create Admin Account')} wide={false}>
            {invitation ? (
                <InvitedAdminForm invitation={invitation} />
            ) : (
                <>
                    <Alert kind="info" title={t('An invitation is required')}>
                        <p>
                            {t(
                                'Administrator accounts are created by invitation only. Ask an existing administrator to invite you, then open the link in the invitation email.',
                            )}
                        </p>
                    </Alert>
                    <p className="auth-links">
                        <Link to={paths.adminLogin}>{t('Already an administrator? Log in')}</Link>
                        <Link to={paths.roleSelection}>{t('Back to role selection')}</Link>
                    </p>
                </>
            )}
        </RegisterPage>
    );
};

const InvitedAdminForm = ({ invitation }: { invitation: string }) => {
    const { t } = useTranslation('register');
    const { signIn } = useSession();
    const notify = useToast();
    const navigate = useNavigate();
    const { form, set, error, text, busy, failure, failureRef, formRef, submitWith, dismissFailure } =
        useRegistrationForm<AdminForm>({
            initial: EMPTY_ADMIN_FORM,
            validate: validateAdmin,
            fallback: 'Registration failed',
        });

    const build = (values: AdminForm): SignupBody => ({
        role: 'admin',
        name: values.name.trim(),
        email: values.email.trim(),
        password: values.password,
        phoneNumber: values.phoneNumber.trim(),
        invitationToken: invitation,
        isHospitalCreated: false,
        privacyPolicyAccepted: false,
    });

    const onSubmit = submitWith(build, ({ token, user }) => {
        signIn(token, user);
        notify(t('Registration successful!'), 'success');
        navigate(paths.adminDashboard);
    });

    const field = (name: keyof AdminForm) => ({
        name,
        value: form[name],
        onChange: (event: { target: { value: string } }) => set(name, event.target.value),
        error: error(name),
        required: true,
    });

    return (
        <>
            <p className="auth-subtitle">{t('You have been invited to administer Cara. Complete your account below.')}</p>
            <FailureAlert failure={failure} anchor={failureRef} onClose={dismissFailure} />
            <form ref={formRef} onSubmit={onSubmit} noValidate>
                <TextField label={t('Full Name')} autoComplete="name" {...field('name')} />
                <TextField
                    label={t('Email')}
                    type="email"
                    autoComplete="email"
                    hint={t('Use the address the invitation was sent to.')}
                    {...field('email')}
                />
                <PasswordFields text={text} hint={t('At least 8 characters')} />
                <TextField
                    label={t('Phone Number')}
                    type="tel"
                    autoComplete="tel"
                    inputMode="numeric"
                    hint={t('10 to 15 digits, numbers only')}
                    {...field('phoneNumber')}
                />
                <Button type="submit" className="btn-block" busy={busy}>
                    {busy ? t('Creating account...') : t('Create Account')}
                </Button>
            </form>
            <p className="auth-links">
                <Link to={paths.adminLogin}>{t('Already an administrator? Log in')}</Link>
            </p>
        </>
    );
};

export default AdminRegister;
