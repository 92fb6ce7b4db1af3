// The web app's one-way layering, as an ESLint rule:
//
//   shared  (src/components, src/lib, src/config, src/locales)
//     -> features  (src/features/<name>: each one imports shared code and itself only)
//       -> app  (src/app, src/main.tsx: router, guards, providers)
//
// Shared code imports no feature and no app module; a feature imports no other
// feature and nothing from app/. A piece two features need moves down into
// components/, lib/ or config/. Both `@/...` and relative paths are resolved.
import path from 'node:path';

const SHARED = new Set(['components', 'lib', 'config', 'locales']);

/** 'shared', 'app', 'feature:<name>' or null for a file outside src/. */
const layerOf = (file, srcDir) => {
    const relative = path.relative(srcDir, file);
    if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
    const [top, second] = relative.split(path.sep);
    if (top === 'features' && second) return `feature:${second}`;
    if (SHARED.has(top)) return 'shared';
    if (top === 'app' || top === 'main.tsx' || top === 'main.ts') return 'app';
    return 'shared'; // styles.css and other top-level files are app-wide
};

const resolveSource = (source, file, srcDir) => {
    if (source.startsWith('@/')) return path.join(srcDir, source.slice(2));
    if (source.startsWith('.')) return path.resolve(path.dirname(file), source);
    return null; // a package
};

const allowed = (from, to) => {
    if (from === 'app') return true;
    if (to === 'app') return false;
    if (from === 'shared') return to === 'shared';
    return to === 'shared' || to === from; // a feature
};

const describe = layer => (layer.startsWith('feature:') ? `feature "${layer.slice(8)}"` : `${layer} code`);

export const layersRule = {
    meta: {
        type: 'problem',
        docs: { description: 'shared -> features -> app; features never import other features' },
        schema: [{ type: 'object', properties: { srcDir: { type: 'string' } }, additionalProperties: false }],
        messages: {
            crossing:
                '{{from}} may not import {{to}} ({{source}}): move the shared piece into components/, lib/ or config/.',
        },
    },
    create(context) {
        const srcDir = context.options[0]?.srcDir;
        const file = context.filename;
        const from = layerOf(file, srcDir);
        if (!from) return {};
        const check = node => {
            const source = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : null;
            if (!source) return;
            const target = resolveSource(source, file, srcDir);
            if (!target) return;
            const to = layerOf(target, srcDir);
            if (to && !allowed(from, to))
                context.report({ node, messageId: 'crossing', data: { from: describe(from), to: describe(to), source } });
        };
        return {
            ImportDeclaration: node => check(node.source),
            ExportNamedDeclaration: node => check(node.source),
            ExportAllDeclaration: node => check(node.source),
            ImportExpression: node => check(node.source),
        };
    },
};
