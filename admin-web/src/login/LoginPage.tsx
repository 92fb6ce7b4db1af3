import { useLocaleState, useLogin, useNotify, useTranslate } from 'react-admin';
import { toSupportedLocale, DEFAULT_LOCALE } from '../i18n/locales';
import { LoginForm } from './LoginForm';
import type { LoginParams } from './signIn';

/**
 * The login route inside the console (a visitor sent to /admin/login by
 * react-admin): the same form as the screen main.tsx shows before the console
 * is loaded, with react-admin's translations, language and sign-in.
 */
export const LoginPage = () => {
    const translate = useTranslate();
    const login = useLogin();
    const notify = useNotify();
    const [locale, setLocale] = useLocaleState();

    const signIn = async (params: LoginParams) => {
        await login(params);
        notify('cara.login.welcome', { type: 'success' });
    };

    return (
        <LoginForm
            translate={(key, options) => translate(key, options)}
            locale={toSupportedLocale(locale) ?? DEFAULT_LOCALE}
            onLocaleChange={setLocale}
            signIn={signIn}
        />
    );
};
