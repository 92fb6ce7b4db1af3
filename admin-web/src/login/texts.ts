import { en } from '../i18n/messages/en';
import type { Locale } from '../i18n/locales';

/** Translates a console key (`cara.login.title`); `_` is the text when the key is unknown. */
export type Translate = (key: string, options?: { _?: string }) => string;

type Tree = { [key: string]: string | Tree };

// English is bundled with the login screen (every language falls back to it);
// another language's texts are fetched when it is the one in use.
const others = import.meta.glob<Record<string, Tree>>(['../i18n/messages/{fr,es,ar}.ts']);

const lookup = (tree: Tree, key: string): string | undefined => {
    let node: string | Tree | undefined = tree;
    for (const part of key.split('.')) {
        if (typeof node !== 'object') return undefined;
        node = node[part];
    }
    return typeof node === 'string' ? node : undefined;
};

const translator =
    (messages: Tree | null): Translate =>
    (key, options) =>
        (messages && lookup(messages, key)) ?? lookup(en, key) ?? options?._ ?? key;

export const englishTexts: Translate = translator(null);

/** The console's own texts in `locale` (no react-admin: the login screen loads before it). */
export const loadTexts = async (locale: Locale): Promise<Translate> => {
    const load = others[`../i18n/messages/${locale}.ts`];
    if (!load) return englishTexts;
    const module = await load();
    return translator(module[locale] ?? null);
};
