/**
 * The failure texts every screen's API calls share (spec §8): English, and
 * the translation keys the screens show them with. One definition each, so a
 * screen and its neighbours always say the same thing.
 */

/** The server could not be reached (no network, the request never got an answer). */
export const NETWORK_FAILED = 'Network error. Please check connection and try again.';

/** The server answered with a failure and no message of its own. */
export const SOMETHING_WENT_WRONG = 'Something went wrong. Please try again.';
