// The order of a module's imports, as an ESLint rule: packages first, then
// shared code through the `@/` alias, then the module's own relative
// imports, then side-effect imports (its stylesheet). Within each group the
// paths are in alphabetical order. Blank lines between groups are free.
const groupOf = node => {
    const source = node.source.value;
    if (node.specifiers.length === 0) return 3;
    if (source.startsWith('@/')) return 1;
    if (source.startsWith('.')) return 2;
    return 0;
};

const GROUPS = ['a package', 'an @/ import', 'a relative import', 'a side-effect import'];

const compare = (a, b) => {
    const left = a.toLowerCase();
    const right = b.toLowerCase();
    if (left === right) return 0;
    return left < right ? -1 : 1;
};

export const importOrderRule = {
    meta: {
        type: 'suggestion',
        docs: { description: 'packages, then @/ imports, then relative imports, then side effects; each sorted' },
        schema: [],
        messages: {
            group: '{{source}} ({{group}}) belongs before {{previous}} ({{previousGroup}}).',
            sorted: '{{source}} belongs before {{previous}}: sort imports alphabetically within their group.',
        },
    },
    create(context) {
        return {
            Program(program) {
                let previous = null;
                for (const node of program.body) {
                    if (node.type !== 'ImportDeclaration') continue;
                    const current = { node, group: groupOf(node), source: node.source.value };
                    if (previous) {
                        if (current.group < previous.group) {
                            context.report({
                                node,
                                messageId: 'group',
                                data: {
                                    source: current.source,
                                    group: GROUPS[current.group],
                                    previous: previous.source,
                                    previousGroup: GROUPS[previous.group],
                                },
                            });
                        } else if (current.group === previous.group && compare(current.source, previous.source) < 0) {
                            context.report({
                                node,
                                messageId: 'sorted',
                                data: { source: current.source, previous: previous.source },
                            });
                        }
                    }
                    previous = current;
                }
            },
        };
    },
};
