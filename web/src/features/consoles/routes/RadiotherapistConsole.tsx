import { CONSOLES } from '../consoles';
import { LiveConsole } from '../LiveConsole';
import { PlanReviewPanel } from '../plan-review/PlanReviewPanel';

/** Lazy route module: the console's code loads only when a console is opened. */
const RadiotherapistConsole = () => (
    <LiveConsole
        profile={CONSOLES['radiotherapist']}
        extra={consultationId => <PlanReviewPanel consultationId={consultationId} />}
    />
);
export default RadiotherapistConsole;
