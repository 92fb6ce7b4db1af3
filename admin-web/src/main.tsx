import { StrictMode, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { applyDocumentLocale, detectLocale, LOCALE_STORAGE_KEY, type Locale } from './i18n/locales';
import { session } from './lib/session';
import { LoginForm } from './login/LoginForm';
import { signIn, type LoginParams } from './login/signIn';
import { englishTexts, loadTexts, type Translate } from './login/texts';

// Before the first paint, so Arabic never flashes left to right.
const initialLocale = detectLocale();
applyDocumentLocale(initialLocale);

const root = createRoot(document.getElementById('root')!);
const loadConsole = () => import('./console');

const startConsole = (target: Root) => void loadConsole().then(({ renderConsole }) => renderConsole(target));

/**
 * /admin/login is drawn by a small screen of its own (React, LoginForm and its
 * CSS, the English texts): react-admin and MUI are several times its size, and
 * a phone on a slow link would wait for them before seeing the form. Once the
 * form is up their code is fetched in the background; after sign-in the
 * console replaces the screen at /admin/ and greets the admin.
 */
const StandaloneLogin = ({ texts }: { texts: Translate }) => {
    const [translate, setTranslate] = useState<{ texts: Translate }>({ texts });
    const [locale, setLocale] = useState<Locale>(initialLocale);

    const changeLocale = (next: Locale) => {
        try {
            localStorage.setItem(LOCALE_STORAGE_KEY, next);
        } catch {
            // storage disabled: the choice lasts for this page
        }
        applyDocumentLocale(next);
        setLocale(next);
        void loadTexts(next).then(loaded => setTranslate({ texts: loaded }));
    };

    const submit = async (params: LoginParams) => {
        await signIn(params);
        session.greetOnArrival();
        window.history.replaceState(null, '', '/admin/');
        startConsole(root);
    };

    return <LoginForm translate={translate.texts} locale={locale} onLocaleChange={changeLocale} signIn={submit} />;
};

const onLoginPage = window.location.pathname.replace(/\/+$/, '') === '/admin/login';

if (onLoginPage) {
    const show = (texts: Translate) =>
        root.render(
            <StrictMode>
                <StandaloneLogin texts={texts} />
            </StrictMode>,
        );
    // English is in this chunk; another language's texts are one small request.
    if (initialLocale === 'en') show(englishTexts);
    else void loadTexts(initialLocale).then(show, () => show(englishTexts));
    // The console's code, while the admin types.
    window.addEventListener('load', () => window.setTimeout(() => void loadConsole(), 0), { once: true });
} else {
    startConsole(root);
}
