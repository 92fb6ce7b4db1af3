import { CONSOLES } from '../consoles';
import { LiveConsole } from '../LiveConsole';

/**
 * The generic live console (spec §1, §2): always awake, summary and report
 * draft requests warned by toast. Spec §2 gives it no route of its own; this
 * module is ready for one (a `paths` entry and one router line).
 */
const GenericConsole = () => <LiveConsole profile={CONSOLES['generic']} />;
export default GenericConsole;
