// Translation checks, run with the type check (npm run typecheck):
//  1. every language has exactly the English keys of each namespace, none empty;
//  2. every t('literal') key used in the code exists in an English namespace;
//  3. components hold no visible English: no letters in JSX text, and no
//     literal placeholder/title/aria-label/alt/label attributes.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const localesDir = path.join(root, 'src', 'locales');
const LANGUAGES = ['en', 'fr', 'es', 'ar'];
const problems = [];

const load = (language, namespace) =>
    JSON.parse(readFileSync(path.join(localesDir, language, `${namespace}.json`), 'utf8'));
const namespaces = readdirSync(path.join(localesDir, 'en'))
    .filter(name => name.endsWith('.json'))
    .map(name => name.replace(/\.json$/, ''));

const englishKeys = new Set();
for (const namespace of namespaces) {
    const english = load('en', namespace);
    Object.keys(english).forEach(key => englishKeys.add(key));
    for (const language of LANGUAGES) {
        let messages;
        try {
            messages = load(language, namespace);
        } catch (error) {
            problems.push(`${language}/${namespace}.json: ${error.message}`);
            continue;
        }
        for (const key of Object.keys(english)) {
            if (!(key in messages)) problems.push(`${language}/${namespace}.json: missing "${key}"`);
            else if (typeof messages[key] !== 'string' || !messages[key].trim())
                problems.push(`${language}/${namespace}.json: empty "${key}"`);
        }
        // Plural forms (i18next: key_zero ... key_other): a language has the categories its
        // plural rules name (Arabic six, English two), for a key English pluralises.
        const categories = new Set(new Intl.PluralRules(language).resolvedOptions().pluralCategories);
        for (const key of Object.keys(messages)) {
            const plural = key.match(/^(.*)_(zero|one|two|few|many|other)$/);
            if (plural && `${plural[1]}_other` in english) {
                if (!categories.has(plural[2]))
                    problems.push(`${language}/${namespace}.json: "${key}": ${language} has no '${plural[2]}' plural`);
                continue;
            }
            if (!(key in english)) problems.push(`${language}/${namespace}.json: "${key}" is not an English key`);
        }
    }
}

const sources = [];
const walk = dir => {
    for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(full);
    }
};
walk(path.join(root, 'src'));

// Names that read the same in every language.
const PROPER_NAMES = new Set(['Cara']);
const T_CALL = /\bt\(\s*(['"`])((?:\\.|(?!\1).)*?)\1\s*[,)]/gs;
const JSX_TEXT = /(?<!=)>([^<>{}]*[A-Za-z][^<>{}]*)</g;
const LITERAL_ATTR = /\b(placeholder|title|aria-label|alt|label)="([^"]*[A-Za-z][^"]*)"/g;

for (const file of sources) {
    const relative = path.relative(root, file);
    const code = readFileSync(file, 'utf8');
    for (const match of code.matchAll(T_CALL)) {
        const [, quote, raw] = match;
        if (quote === '`' && raw.includes('${')) continue; // dynamic keys are checked by their callers
        const key = raw.replace(/\\(['"`\\])/g, '$1');
        if (!englishKeys.has(key)) problems.push(`${relative}: t('${key}') has no English entry`);
    }
    if (!file.endsWith('.tsx')) continue;
    // Drop comments and generic type arguments before looking at JSX text.
    const markup = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const match of markup.matchAll(JSX_TEXT)) {
        const text = match[1].trim();
        if (!text || /^[\s\p{P}\p{S}\d]*$/u.test(text) || PROPER_NAMES.has(text)) continue;
        if (/^[,)\]}]/.test(text)) continue; // code after a JSX element in an array or call
        // TypeScript generics and arrow functions also contain '>' ... '<'.
        if (/[;=()]|=>|\b(const|return|import|extends|keyof|typeof)\b/.test(text)) continue;
        problems.push(`${relative}: untranslated text "${text}"`);
    }
    for (const match of markup.matchAll(LITERAL_ATTR)) {
        problems.push(`${relative}: untranslated ${match[1]}="${match[2]}"`);
    }
}

if (problems.length) {
    console.error(`Translation check failed (${problems.length}):\n  ${problems.join('\n  ')}`);
    process.exit(1);
}
console.log(`Translations OK: ${namespaces.length} namespaces x ${LANGUAGES.length} languages, ${sources.length} source files.`);
