import { CONSOLES } from '../consoles';
import { LiveConsole } from '../LiveConsole';

/** Lazy route module: the console's code loads only when a console is opened. */
const CardiologistConsole = () => <LiveConsole profile={CONSOLES['cardiologist']} />;
export default CardiologistConsole;
