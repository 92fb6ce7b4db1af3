// Prints the size of every built JavaScript chunk (raw and gzip) and the
// JavaScript a visitor of / or a login page downloads before interacting:
// the entry chunk, its static imports, and the lazy chunk of that route.
// Budget: 200 kB gzip for those routes.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = path.resolve(import.meta.dirname, '..', 'dist');
const manifestPath = path.join(dist, '.vite', 'manifest.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const BUDGET_KB = 200;
// Each route's lazy module and the English translation files it needs.
const PUBLIC_ROUTES = {
    '/': ['src/features/landing/RoleSelectionPage.tsx', ['common', 'auth']],
    '/doctor-login': ['src/features/auth/routes/DoctorLogin.tsx', ['common', 'auth']],
    '/hospital-login': ['src/features/auth/routes/HospitalLogin.tsx', ['common', 'auth']],
    '/admin-login': ['src/features/auth/routes/AdminLogin.tsx', ['common', 'auth']],
    '/doctor-register': ['src/features/register/routes/DoctorRegister.tsx', ['common', 'register']],
};

const gzipKb = file => gzipSync(readFileSync(path.join(dist, file))).length / 1024;
const rawKb = file => readFileSync(path.join(dist, file)).length / 1024;

// Every chunk a manifest entry pulls in synchronously (static imports), plus itself.
const closure = (key, seen = new Set()) => {
    const entry = manifest[key];
    if (!entry || seen.has(entry.file)) return seen;
    seen.add(entry.file);
    for (const imported of entry.imports ?? []) closure(imported, seen);
    return seen;
};

const entryKey = Object.keys(manifest).find(key => manifest[key].isEntry);
const entryFiles = closure(entryKey);

const jsFiles = readdirSync(path.join(dist, 'assets')).filter(name => name.endsWith('.js'));
console.log('\nJavaScript chunks (kB raw / kB gzip):');
for (const name of jsFiles.sort()) {
    const file = `assets/${name}`;
    console.log(`  ${file.padEnd(48)} ${rawKb(file).toFixed(1).padStart(7)} ${gzipKb(file).toFixed(1).padStart(7)}`);
}

let over = false;
console.log(`\nJavaScript loaded per public route (gzip, budget ${BUDGET_KB} kB):`);
for (const [route, [source, namespaces]] of Object.entries(PUBLIC_ROUTES)) {
    const files = new Set([...entryFiles, ...closure(source)]);
    for (const namespace of namespaces) closure(`src/locales/en/${namespace}.json`, files);
    const total = [...files].reduce((sum, file) => sum + gzipKb(file), 0);
    over ||= total > BUDGET_KB;
    console.log(`  ${route.padEnd(16)} ${total.toFixed(1).padStart(7)} kB  (${files.size} files)`);
}
if (over) {
    console.error(`\nOver budget: a public route loads more than ${BUDGET_KB} kB of JavaScript (gzip).`);
    process.exit(1);
}
