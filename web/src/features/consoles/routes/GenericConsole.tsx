import { CONSOLES } from '../consoles';
import { LiveConsole } from '../LiveConsole';

/**
 * The generic live console (spec §1, §2): always awake, summary and report
 * draft requests warned by toast. Its route is `paths.assistant`, linked from
 * the doctor dashboard's Quick Actions.
 */
const GenericConsole = () => <LiveConsole profile={CONSOLES['generic']} />;
export default GenericConsole;
