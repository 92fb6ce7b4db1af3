import { CONSOLES } from '../consoles';
import { LiveConsole } from '../LiveConsole';

/** Lazy route module: the console's code loads only when a console is opened. */
const RadiologistConsole = () => <LiveConsole profile={CONSOLES['radiologist']} />;
export default RadiologistConsole;
