import { Alert, Box, Button, Card, CardContent, CircularProgress, Link, TextField, Typography } from '@mui/material';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { LocalesMenuButton, useLogin, useNotify, useTranslate } from 'react-admin';
import { LogoMark } from '../layout/Logo';
import { validateLogin, type LoginErrors, type LoginForm } from './validation';

/** /admin/login: the admin login form (spec §2 `/admin-login`, §5, §8). */
export const LoginPage = () => {
    const translate = useTranslate();
    const login = useLogin();
    const notify = useNotify();
    const [form, setForm] = useState<LoginForm>({ email: '', password: '' });
    const [errors, setErrors] = useState<LoginErrors>({});
    const [failure, setFailure] = useState<string | null>(null);
    const [submitting, setSubmitting] = useState(false);

    const change = (field: keyof LoginForm) => (event: ChangeEvent<HTMLInputElement>) => {
        setForm(current => ({ ...current, [field]: event.target.value }));
        setErrors(current => ({ ...current, [field]: undefined }));
    };

    const submit = async (event: FormEvent) => {
        event.preventDefault();
        const found = validateLogin(form);
        setErrors(found);
        if (Object.keys(found).length > 0) return;
        setSubmitting(true);
        setFailure(null);
        try {
            await login({ email: form.email.trim(), password: form.password });
            notify('cara.login.welcome', { type: 'success' });
        } catch (error) {
            const message = translate((error as Error)?.message || 'cara.login.failed', {
                _: (error as Error)?.message,
            });
            setFailure(message);
            notify(message, { type: 'error' });
            setSubmitting(false);
        }
    };

    return (
        <Box
            sx={{
                minHeight: '100vh',
                display: 'flex',
                flexDirection: 'column',
                alignItems: 'center',
                justifyContent: 'center',
                bgcolor: 'background.default',
                p: 2,
            }}
        >
            <Box sx={{ position: 'absolute', top: 8, insetInlineEnd: 8 }} data-testid="language-switcher">
                <LocalesMenuButton />
            </Box>
            <Card sx={{ width: '100%', maxWidth: 400 }}>
                <CardContent component="form" onSubmit={submit} noValidate sx={{ display: 'grid', gap: 2, p: 3 }}>
                    <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', gap: 1 }}>
                        <LogoMark size={44} />
                        <Typography variant="h5" component="h1">
                            {translate('cara.login.title')}
                        </Typography>
                        <Typography variant="body2" color="text.secondary">
                            {translate('cara.login.subtitle')}
                        </Typography>
                    </Box>
                    {failure && (
                        <Alert severity="error" role="alert">
                            {failure}
                        </Alert>
                    )}
                    <TextField
                        name="email"
                        type="email"
                        autoComplete="username"
                        label={translate('cara.login.email')}
                        value={form.email}
                        onChange={change('email')}
                        error={!!errors.email}
                        helperText={errors.email ? translate(errors.email) : ' '}
                        disabled={submitting}
                        autoFocus
                        fullWidth
                    />
                    <TextField
                        name="password"
                        type="password"
                        autoComplete="current-password"
                        label={translate('cara.login.password')}
                        value={form.password}
                        onChange={change('password')}
                        error={!!errors.password}
                        helperText={errors.password ? translate(errors.password) : ' '}
                        disabled={submitting}
                        fullWidth
                    />
                    <Button
                        type="submit"
                        variant="contained"
                        size="large"
                        disabled={submitting}
                        startIcon={submitting ? <CircularProgress size={18} color="inherit" /> : undefined}
                        fullWidth
                    >
                        {translate(submitting ? 'cara.login.submitting' : 'cara.login.submit')}
                    </Button>
                    <Link href="/" variant="body2" sx={{ textAlign: 'center' }}>
                        {translate('cara.login.back')}
                    </Link>
                </CardContent>
            </Card>
        </Box>
    );
};
